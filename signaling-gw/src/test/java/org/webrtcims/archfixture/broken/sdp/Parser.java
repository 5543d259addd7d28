package org.webrtcims.archfixture.broken.sdp;

import org.webrtcims.archfixture.broken.call.Leg;

/** Fixture (PackageNeverEdgesTest): SDP parsing that knows a call (forbidden). */
public final class Parser {
    public String parse(Leg leg) { return "v=0 " + leg.tag(); }
}

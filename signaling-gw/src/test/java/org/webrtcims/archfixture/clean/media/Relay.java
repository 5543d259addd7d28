package org.webrtcims.archfixture.clean.media;

import org.webrtcims.archfixture.clean.sdp.Sdp;

/** Fixture (PackageNeverEdgesTest): the relay door uses SDP only. */
public final class Relay {
    public String offer(Sdp sdp) { return sdp.text(); }
}

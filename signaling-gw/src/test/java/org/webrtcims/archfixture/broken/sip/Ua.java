package org.webrtcims.archfixture.broken.sip;

import org.webrtcims.archfixture.broken.media.Door;

/** Fixture (PackageNeverEdgesTest): SIP asking the relay itself (forbidden). */
public final class Ua {
    public String via() { return new Door().name(); }
}

package org.webrtcims.archfixture.broken.media;

import org.webrtcims.archfixture.broken.call.Leg;

/** Fixture (PackageNeverEdgesTest): the relay door reading a call's state (forbidden). */
public final class Door {
    public String name() { return "relay"; }

    public String tagOf(Leg leg) { return leg.tag(); }
}

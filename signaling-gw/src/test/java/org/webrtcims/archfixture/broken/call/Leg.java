package org.webrtcims.archfixture.broken.call;

/** Fixture (PackageNeverEdgesTest): a call's state. */
public final class Leg {
    public String tag() { return "t"; }
}

package org.webrtcims.archfixture.clean.sdp;

/** Fixture (PackageNeverEdgesTest): SDP text, knowing nothing above it. */
public final class Sdp {
    public String text() { return "v=0"; }
}

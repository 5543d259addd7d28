package org.webrtcims.archfixture.clean.api;

import org.webrtcims.archfixture.clean.call.Calls;

/** Fixture (PackageNeverEdgesTest): the browser face reaches SIP and media through calls only. */
public final class Face {
    public void call() { new Calls().place(); }
}

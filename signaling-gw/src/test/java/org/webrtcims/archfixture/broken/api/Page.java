package org.webrtcims.archfixture.broken.api;

import org.webrtcims.archfixture.broken.media.Door;

/** Fixture (PackageNeverEdgesTest): the browser face going to the relay itself (forbidden). */
public final class Page {
    public String health() { return new Door().name(); }
}

package org.webrtcims.archfixture.fields.api;

/** Fixture (FieldOwnersTest): a class of another package writes a call's field (not allowed). */
public final class Page {
    public void show(org.webrtcims.archfixture.fields.call.Leg leg) {
        leg.state = "shown";
    }
}

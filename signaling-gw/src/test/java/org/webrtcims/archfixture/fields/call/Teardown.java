package org.webrtcims.archfixture.fields.call;

/** Fixture (FieldOwnersTest): another class of the call package writes the leg's field (not allowed). */
final class Teardown {
    void end(Leg leg) { leg.state = "ended"; }
}

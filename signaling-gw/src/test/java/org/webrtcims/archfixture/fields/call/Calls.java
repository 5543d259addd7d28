package org.webrtcims.archfixture.fields.call;

/** Fixture (FieldOwnersTest): writes only its own field and asks the leg through a method (allowed). */
public final class Calls {
    private int placed;

    public void place(Leg leg) {
        placed++;
        leg.answered();
    }
}

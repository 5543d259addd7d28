package org.webrtcims.archfixture.fields.call;

/** Fixture (FieldOwnersTest): a call's leg; it writes its own fields (allowed) and its nested class's (not allowed). */
public final class Leg {
    /** Public, so that a class of another package can write it too (FieldOwnersTest). */
    public String state = "new";
    private final Codec codec = new Codec();

    /** Fixture: state nested in the leg, which writes the leg's field (not allowed). */
    final class Codec {
        String name;

        void chosen() { state = "codec-chosen"; }
    }

    public void answered() { state = "answered"; }

    void codec(String name) { codec.name = name; }
}

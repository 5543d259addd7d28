package org.webrtcims.gw.call;

/** mo: the browser called out; mt: the IMS side called the browser. */
public enum Direction {
    MO, MT;

    public String wire() { return name().toLowerCase(); }
}

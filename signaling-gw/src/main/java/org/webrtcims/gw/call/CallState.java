package org.webrtcims.gw.call;

/** Where a call is; one enum for both directions. */
public enum CallState {
    /** MO: INVITE sent, no provisional yet. */
    CALLING,
    /** MO: a provisional (180/183) arrived. */
    EARLY,
    /** MT: INVITE received, browser alerted, no answer yet. */
    INCOMING,
    /** MT: 200 sent, waiting for the ACK. */
    ANSWERING,
    CONFIRMED,
    ENDED;

    public String wire() { return name().toLowerCase(); }
}

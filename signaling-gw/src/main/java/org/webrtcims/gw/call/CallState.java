package org.webrtcims.gw.call;

import java.util.EnumSet;
import java.util.Set;

/** Where a call is; one enum for both directions, with the transitions a call may take ({@link Call#transition}). */
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

    /** The states a call in this one may move to (MO: CALLING → EARLY → CONFIRMED; MT: INCOMING → ANSWERING → CONFIRMED; any → ENDED). */
    Set<CallState> next() {
        return switch (this) {
            case CALLING -> EnumSet.of(EARLY, CONFIRMED, ENDED);
            case EARLY -> EnumSet.of(CONFIRMED, ENDED);
            case INCOMING -> EnumSet.of(ANSWERING, ENDED);
            case ANSWERING -> EnumSet.of(CONFIRMED, ENDED);
            case CONFIRMED -> EnumSet.of(ENDED);
            case ENDED -> EnumSet.noneOf(CallState.class);
        };
    }

    /** Whether a call may move from this state to {@code to}. */
    boolean canGo(CallState to) { return next().contains(to); }
}

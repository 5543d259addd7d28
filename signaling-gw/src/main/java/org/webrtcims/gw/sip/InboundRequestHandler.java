package org.webrtcims.gw.sip;

import javax.sip.Dialog;
import javax.sip.RequestEvent;
import javax.sip.ServerTransaction;

/**
 * Takes the requests the IMS side sends to the gateway (INVITE, ACK, BYE, CANCEL, …), and what the stack
 * reports about the dialogs and server transactions those requests made (issue #12: none is ignored).
 */
public interface InboundRequestHandler {
    void onRequest(RequestEvent event);

    /**
     * The stack gave up on a dialog: {@code reason} is JAIN-SIP's DialogTimeoutEvent.Reason, e.g.
     * {@code AckNotReceived} (our 2xx was retransmitted for 64×T1 without an ACK, RFC 3261 §13.3.1.4).
     * The stack deletes the dialog after this returns.
     */
    default void onDialogTimeout(Dialog dialog, String reason) { }

    /** A dialog ended in the stack (after a BYE, or deleted by the stack itself). */
    default void onDialogTerminated(Dialog dialog) { }

    /** A server transaction timed out (e.g. Timer H: no ACK for a final non-2xx response to an INVITE). */
    default void onServerTimeout(ServerTransaction tx) { }
}

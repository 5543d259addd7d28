package org.webrtcims.gw.call;

import javax.sip.ServerTransaction;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * One SIP extension of a call's dialog (100rel/PRACK, preconditions, session timers, UPDATE offers, early media,
 * forking): what it adds to the gateway's initial INVITE, what it does with a provisional or 2xx response to it, what
 * it takes from IMS's initial INVITE, and which in-dialog requests from IMS it answers. {@link DialogExtensions} holds them in order; adding an extension is adding a class. Every method
 * runs under the call's lock.
 */
interface DialogExtension {
    /** Adds its headers to the gateway's initial INVITE (MO; again after a 422). */
    default void initialInvite(Call c, Request invite) throws java.text.ParseException { }

    /** MT: an INVITE from IMS ({@code offer}: its SDP, null when offerless) started the call. */
    default void invited(Call c, Request invite, String offer) { }

    /** A provisional response (101-199) to the gateway's INVITE, on the dialog {@code d} of the fork that sent it. */
    default void provisional(Call c, Response r, javax.sip.Dialog d) { }

    /**
     * A 2xx to the gateway's INVITE on the dialog {@code d} of the fork that sent it: true when this extension took it
     * (then it is not the call's answer).
     */
    default boolean success(Call c, Response r, javax.sip.Dialog d) { return false; }

    /**
     * An in-dialog request from IMS (re-INVITE, UPDATE, PRACK; {@code offer}: its SDP or null): true when this
     * extension answered it, and the ones after it are not asked.
     */
    default boolean request(ServerTransaction st, Call c, String offer) { return false; }
}

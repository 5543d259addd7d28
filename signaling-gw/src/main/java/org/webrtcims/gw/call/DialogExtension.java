package org.webrtcims.gw.call;

import org.webrtcims.gw.sdp.QosPreconditions;

import javax.sip.ServerTransaction;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * One SIP extension of a call's dialog (100rel/PRACK, preconditions, session timers, UPDATE offers, early media,
 * forking, DTMF): what it adds to the gateway's initial INVITE, what it does with a provisional or 2xx response to it,
 * what it takes from IMS's initial INVITE, what it does when the browser answers or accepts an MT call, and which
 * in-dialog requests from IMS it answers. {@link DialogExtensions} holds them in order; adding an extension is adding a class. Every method
 * runs under the call's lock.
 */
interface DialogExtension {
    /**
     * MO: before the browser's offer is made into the INVITE's SDP: the precondition status lines the extension wants
     * in it (RFC 3312 §5), or null for none. The call's media leg writes them into the offer it makes.
     */
    default QosPreconditions.Status offering(Call c) { return null; }

    /** Adds its headers to the gateway's initial INVITE (MO; again after a 422). */
    default void initialInvite(Call c, Request invite) throws java.text.ParseException { }

    /**
     * MT: an INVITE from IMS, before a call exists for it: true when this extension refused it and answered it itself
     * (RFC 4028 §9: a 422 for too short a session interval); the first that does ends the walk.
     */
    default boolean refusesInvite(ServerTransaction st) { return false; }

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
     * A failure response to the gateway's INVITE: true when this extension asks for the INVITE again (RFC 4028 §7.4:
     * a 422 names the interval to ask for); the first that does ends the walk.
     */
    default boolean retryInvite(Call c, Response failure) { return false; }

    /**
     * MT: the browser answers (or, after an offerless INVITE, offers), before rtpengine sees its SDP; {@code injectDtmf}:
     * it asked for WebSocket `dtmf` on the call.
     */
    default void browserAnswering(Call c, boolean injectDtmf) { }

    /** MT: the browser's early answer, as rtpengine made it for IMS (preconditions: it goes in a reliable 183). */
    default void earlyAnswer(Call c, String imsAnswer) { }

    /** MT: the browser accepted the call: true when this extension sends the 200 itself (preconditions: once both segments are met). */
    default boolean accepted(Call c) { return false; }

    /**
     * An in-dialog request from IMS (re-INVITE, UPDATE, PRACK; {@code offer}: its SDP or null): true when this
     * extension answered it, and the ones after it are not asked.
     */
    default boolean request(ServerTransaction st, Call c, String offer) { return false; }
}

package org.webrtcims.gw.call;

import org.springframework.stereotype.Component;
import org.webrtcims.gw.sdp.QosPreconditions;

import javax.sip.ServerTransaction;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.util.List;

/**
 * The SIP extensions a call's dialog uses, in order. An initial INVITE gets 100rel (RFC 3262), precondition
 * (RFC 3312/4032), then the session timer's headers (RFC 4028); a provisional response to it is PRACKed when reliable,
 * then gives the browser its early media; a 2xx of another fork is closed by forking; an in-dialog request from IMS is offered to
 * preconditions (an UPDATE with precondition status before the call is confirmed: RFC 3312 §5, handled there alone),
 * PRACK (RFC 3262), the session timer (a 422 for too short an interval; else it restarts and passes the request on), the
 * mid-call offers (re-INVITE, and UPDATE with SDP in a confirmed call: RFC 3311), then what is left of UPDATE
 * (RFC 3311: 200, or 488 for an early offer); the first that answers it ends the walk. When the browser answers an MT call, DTMF (injection asked for before rtpengine's
 * answer) then preconditions (the early answer in a reliable 183, the 200 once both segments are met) take part.
 */
@Component
public class DialogExtensions {
    private final List<DialogExtension> invite;
    private final List<DialogExtension> responses;
    private final List<DialogExtension> requests;
    private final List<DialogExtension> answers;

    public DialogExtensions(ReliableProvisionals reliable, Preconditions preconditions, SessionTimers sessionTimers,
                            MidCallOffers midCall, EarlyMedia earlyMedia, Forking forking, Updates updates, Dtmf dtmf) {
        this.invite = List.of(reliable, preconditions, sessionTimers);
        this.responses = List.of(reliable, earlyMedia, forking);
        this.requests = List.of(preconditions, reliable, sessionTimers, midCall, updates);
        this.answers = List.of(dtmf, preconditions);
    }

    /**
     * MO: the status lines the INVITE's SDP offers (null: none), asked of each extension before the browser's offer is
     * made into it; the first that wants some gives them (preconditions).
     */
    QosPreconditions.Status offering(Call c) {
        for (DialogExtension e : invite) {
            QosPreconditions.Status s = e.offering(c);
            if (s != null) return s;
        }
        return null;
    }

    /** Each extension's headers on the gateway's initial INVITE. */
    void initialInvite(Call c, Request req) throws java.text.ParseException {
        for (DialogExtension e : invite) e.initialInvite(c, req);
    }

    /** MT: IMS's INVITE, before a call exists: true when an extension refused it (the session timer's 422). */
    boolean refusesInvite(ServerTransaction st) {
        for (DialogExtension e : invite) if (e.refusesInvite(st)) return true;
        return false;
    }

    /** MT: IMS's INVITE started the call: what preconditions and the session timer take from it. */
    void invited(Call c, Request req, String offer) {
        for (DialogExtension e : invite) e.invited(c, req, offer);
    }

    /** A provisional response to the gateway's INVITE: PRACKed when reliable, then early media. */
    void provisional(Call c, Response r, javax.sip.Dialog d) {
        for (DialogExtension e : responses) e.provisional(c, r, d);
    }

    /** A 2xx to the gateway's INVITE: true when an extension took it (another fork's, closed by forking). */
    boolean success(Call c, Response r, javax.sip.Dialog d) {
        for (DialogExtension e : responses) if (e.success(c, r, d)) return true;
        return false;
    }

    /** A failure response to the gateway's INVITE: true when an extension asks for the INVITE again (the session timer's 422). */
    boolean retryInvite(Call c, Response failure) {
        for (DialogExtension e : invite) if (e.retryInvite(c, failure)) return true;
        return false;
    }

    /** MT: the browser answers (or offers, offerless): DTMF injection is asked for now, before rtpengine's answer. */
    void browserAnswering(Call c, boolean injectDtmf) {
        for (DialogExtension e : answers) e.browserAnswering(c, injectDtmf);
    }

    /** MT: the browser's early answer as rtpengine made it for IMS: preconditions send it in a reliable 183. */
    void earlyAnswer(Call c, String imsAnswer) {
        for (DialogExtension e : answers) e.earlyAnswer(c, imsAnswer);
    }

    /** MT: the browser accepted: true when an extension sends the 200 itself (preconditions, once both segments are met). */
    boolean accepted(Call c) {
        for (DialogExtension e : answers) if (e.accepted(c)) return true;
        return false;
    }

    /** An in-dialog request from IMS: false when no extension answered it. */
    boolean request(ServerTransaction st, Call c, String offer) {
        for (DialogExtension e : requests) if (e.request(st, c, offer)) return true;
        return false;
    }
}

package org.webrtcims.gw.call;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.media.ImsCodec;
import org.webrtcims.gw.sdp.MediaChange;
import org.webrtcims.gw.sip.RegistrationClient;
import org.webrtcims.gw.sip.SipIds;
import org.webrtcims.gw.sip.SipHeaders;

import javax.sip.ResponseEvent;
import javax.sip.address.SipURI;
import javax.sip.header.ToHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * Browser-originated calls: rtpengine offer, INVITE toward IMS (with RFC 3312 preconditions when enabled),
 * PRACK of reliable provisionals, the UPDATE that reports the gateway's local QoS, final response, ACK.
 */
@Component
public class OutgoingCalls {
    private static final Logger log = LoggerFactory.getLogger(OutgoingCalls.class);

    private final CallContext ctx;
    private final Preconditions preconditions;
    private final RegistrationClient registration;
    private final long inviteTimeoutMs;
    private final SessionTimers sessionTimers;

    public OutgoingCalls(CallContext ctx, Preconditions preconditions, RegistrationClient registration, SessionTimers sessionTimers) {
        this.ctx = ctx;
        this.sessionTimers = sessionTimers;
        this.preconditions = preconditions;
        this.registration = registration;
        this.inviteTimeoutMs = ctx.props().getIms().getInviteTimeoutMs();
    }

    /** Starts a call; the browser hears `calling` before any SIP response can arrive. */
    Call place(String token, String user, String to, String browserSdp) {
        return place(token, user, to, browserSdp, null, false, null);
    }

    /**
     * As above; imsCodec non-null forces that codec on the IMS leg (rtpengine transcodes, and then the call also
     * takes WebSocket `dtmf` at no extra cost); injectDtmf: the browser asked for WebSocket `dtmf` (`dtmf: "inject"`);
     * identity: the registered public user identity to call as (`call.identity`; null = the default public user
     * identity, TS 24.229 §5.1.2A.1.1); one outside the registered set is refused (`bad-identity`) before anything
     * is sent or allocated.
     */
    Call place(String token, String user, String to, String browserSdp, ImsCodec imsCodec, boolean injectDtmf, String identity) {
        String caller;
        try {
            caller = registration.callerIdentity(user, identity);
        } catch (org.webrtcims.gw.sip.RegisteredIdentities.NotRegistered e) {
            throw new CallFailure("bad-identity", e.getMessage());
        }
        String contactUser = registration.contactUser(user).orElseThrow(() ->
                new CallFailure("bad-identity", user + " has no IMS registration to call from"));
        SipURI target;
        try {
            target = ctx.requests().target(to);
        } catch (java.text.ParseException e) {
            throw new CallFailure("bad-message", "cannot call '" + to + "': not a user name, SIP or tel URI");
        } catch (org.webrtcims.gw.sip.SipRequests.TargetRefused e) {
            throw new CallFailure("forbidden-target", e.getMessage());
        }
        Call c = new Call(ctx.ua().newCallId(), Direction.MO, token, user, target.getUser() + "@" + target.getHost(),
                SipIds.tag(), CallState.CALLING);
        synchronized (c) {
            c.callerIdentity = caller;
            c.contactUser = contactUser;
            c.sdp.imsCodec = imsCodec;
            c.sdp.injectDtmf = injectDtmf || imsCodec != null;
            String imsSdp = preconditions.moOffer(ctx.media().offerFromBrowser(c, browserSdp));
            c.sdp.imsSdp = imsSdp;
            ctx.registry().add(c);
            // `calling` after the INVITE (issue #26: the INVITE waits for no WebSocket write); responses wait for this lock
            try {
                sendInvite(c, target, 1);
                ctx.sink().toBrowser(token, CallMessages.of("calling", c.id, "to", c.remote));
                ctx.timers().after(inviteTimeoutMs, () -> giveUp(c));
            } catch (Exception e) {
                ctx.sink().toBrowser(token, CallMessages.of("calling", c.id, "to", c.remote));
                log.warn("INVITE for {} not sent: {}", c.id, e.toString());
                ctx.teardown().finish(c, "sip-failed", null);
                throw new CallFailure("sip-failed", "cannot send INVITE: " + e.getMessage(), c.id);
            }
        }
        return c;
    }

    /** The INVITE (CSeq {@code cseq}: 1, or the next after a 422) with the call's SDP toward IMS; the caller holds the lock. */
    private void sendInvite(Call c, SipURI target, long cseq) throws Exception {
        // TS 24.229 §5.1.2A.1.1: From is the public user identity the call goes out as (the login name is no identity)
        javax.sip.address.Address caller = ctx.ua().addresses().createAddress(c.callerIdentity);
        Request invite = ctx.requests().create(Request.INVITE, target, caller, c.fromTag,
                ctx.ua().addresses().createAddress(target), c.id, cseq, c.contactUser);
        ctx.requests().setSdpBody(invite, c.sdp.imsSdp);
        // RFC 3608 / TS 24.229 §5.1.2A: after the P-CSCF, the Service-Route of the registration.
        for (javax.sip.address.Address hop : registration.serviceRoute(c.localUser)) {
            invite.addLast(ctx.ua().headers().createRouteHeader(hop));
        }
        invite.addHeader(ctx.ua().headers().createSupportedHeader("100rel"));
        // TS 24.229 §5.1.2A: the public user identity the user wants asserted; the P-CSCF replaces it by P-Asserted-Identity
        invite.setHeader(ctx.ua().headers().createHeader("P-Preferred-Identity", "<" + c.callerIdentity + ">"));
        preconditions.moInviteHeaders(invite);
        sessionTimers.inviteHeaders(c, invite);
        c.flow(Request.INVITE);
        c.inviteTx = ctx.ua().send(invite, new InviteResponses(c));
        c.dialog = c.inviteTx.getDialog();
    }

    /** No final answer in time (provisionals stop Timer B, not this): CANCEL, and the browser hears 408. */
    private void giveUp(Call c) {
        synchronized (c) {
            if (c.state != CallState.CALLING && c.state != CallState.EARLY) return;
            c.sipFinal = Response.REQUEST_TIMEOUT;
            ctx.teardown().hangUp(c, "timeout");
        }
    }

    private final class InviteResponses extends CallResponses {
        InviteResponses(Call c) { super(c); }

        private Response lastResponse;

        @Override
        void response(ResponseEvent event, Response r, int code) {
            lastResponse = r;
            if (event.getClientTransaction() != null && event.getClientTransaction() != c.inviteTx) { // an earlier INVITE's (422)
                log.debug("call {}: {} of an earlier INVITE ignored", c.id, code);
                return;
            }
            String tag = ((ToHeader) r.getHeader(ToHeader.NAME)).getTag();
            javax.sip.Dialog d = event.getDialog() != null ? event.getDialog() : c.dialog;
            if (code >= 200 && code < 300) {
                success(r, d, tag);
                return;
            }
            // Forking (RFC 3261 §13.2.2.4): each early dialog has its own To tag and dialog; the call follows the
            // first one, or the one whose SDP answer the browser got, and at last the one that answers 2xx.
            boolean early = c.state == CallState.CALLING || c.state == CallState.EARLY;
            if (early && (c.toTag == null || c.toTag.equals(tag))) c.dialog = d;
            if (c.toTag == null && tag != null) c.toTag = tag; // rtpengine's answer names the callee's tag
            if (code < 200) provisional(r, d, tag);
            else failure(code, r.getReasonPhrase());
        }

        private void provisional(Response r, javax.sip.Dialog d, String tag) {
            int code = r.getStatusCode();
            if (c.state != CallState.CALLING && c.state != CallState.EARLY) return;
            if (code == Response.TRYING) return;
            c.state = CallState.EARLY;
            if (SipHeaders.requires(r, "100rel")) prack(r, d);
            String sdp = SipHeaders.sdp(r);
            if (sdp != null && c.sdp.browserAnswer == null) {
                if (tag != null) c.toTag = tag; // the early dialog whose answer the browser gets
                c.dialog = d;
                if (!takeAnswer(sdp)) return;
                ctx.sink().toBrowser(c.owner, CallMessages.of("progress", c.id, "sipCode", code, "sdp", c.sdp.browserAnswer));
                preconditions.moAnswered(c, sdp);
                if (code != Response.RINGING) return;
            }
            if (code == Response.RINGING) ctx.sink().toBrowser(c.owner, CallMessages.of("ringing", c.id));
            else if (sdp == null) ctx.sink().toBrowser(c.owner, CallMessages.of("progress", c.id, "sipCode", code));
        }

        private void prack(Response r, javax.sip.Dialog d) {
            try {
                Request prack = d.createPrack(r);
                c.flow(Request.PRACK);
                ctx.ua().sendInDialog(d, prack, ctx.teardown().flowRecorder(c));
            } catch (Exception e) {
                log.warn("PRACK for {} not sent: {}", c.id, e.toString());
            }
        }

        /** rtpengine answer toward the browser from the IMS answer; false (call ended) on failure. */
        private boolean takeAnswer(String imsAnswer) {
            try {
                c.sdp.browserAnswer = ctx.media().answerFromIms(c, imsAnswer);
                return true;
            } catch (CallFailure f) {
                ctx.sink().toBrowser(c.owner, CallMessages.of("error", c.id, "code", f.code(), "message", f.getMessage()));
                ctx.teardown().hangUp(c, f.code());
                return false;
            }
        }

        private void success(Response r, javax.sip.Dialog d, String tag) {
            boolean wanted = c.state == CallState.CALLING || c.state == CallState.EARLY;
            if (!wanted && c.sipFinal != null && tag != null && c.toTag != null && !tag.equals(c.toTag)) {
                otherFork(r, d, tag); // a second fork answered too: it gets ACK and BYE (RFC 3261 §13.2.2.4)
                return;
            }
            // the first 2xx wins: its dialog is the call's; another fork's early answer is replaced by its SDP
            boolean forkSwitch = wanted && tag != null && c.toTag != null && !tag.equals(c.toTag) && c.sdp.browserAnswer != null;
            if (wanted || c.sipFinal == null) { // (ended before any 2xx: this one's dialog is closed below)
                c.dialog = d;
                if (tag != null) c.toTag = tag;
            }
            c.ack(r, "the INVITE");
            if (!wanted) { // the browser hung up while the 200 was on its way: close the dialog we just got
                if (c.sipFinal == null) {
                    c.sipFinal = r.getStatusCode();
                    ctx.teardown().sendBye(c);
                }
                return;
            }
            c.sipFinal = r.getStatusCode();
            String sdp = SipHeaders.sdp(r);
            boolean earlyAnswer = c.sdp.browserAnswer != null;
            // no early answer (183): the 200 must carry it. After one, a 200 whose SDP differs (RFC 6337 §3.1 asks for
            // the same; UEs do change it) is given to rtpengine: the IMS side follows, the browser's side stays as it is.
            if (!earlyAnswer || (sdp != null && (forkSwitch || MediaChange.changes(c.sdp.imsRemoteSdp, sdp)))) {
                try {
                    if (sdp == null) throw new CallFailure("bad-sdp", "200 OK without SDP and no earlier answer");
                    String browserAnswer = ctx.media().answerFromIms(c, sdp);
                    if (!earlyAnswer) c.sdp.browserAnswer = browserAnswer;
                    else log.info("call {}: the 200's SDP differs from the early answer's; rtpengine follows it", c.id);
                } catch (CallFailure f) {
                    ctx.sink().toBrowser(c.owner, CallMessages.of("error", c.id, "code", f.code(), "message", f.getMessage()));
                    ctx.teardown().sendBye(c);
                    ctx.teardown().finish(c, f.code(), c.sipFinal);
                    return;
                }
            }
            c.state = CallState.CONFIRMED;
            c.markSetupDone();
            ctx.registry().answered(c);
            ctx.sink().toBrowser(c.owner, CallMessages.of("answered", c.id, "sdp", c.sdp.browserAnswer));
            MediaStartWatch.start(ctx, c);
            MaxCallLength.start(ctx, c);
            sessionTimers.moConfirmed(c, r);
        }

        /** ACK and BYE on the dialog of a fork whose 2xx came after the call's (its own dialog, not the call's). */
        private void otherFork(Response r, javax.sip.Dialog d, String tag) {
            try {
                long cseq = ((javax.sip.header.CSeqHeader) r.getHeader(javax.sip.header.CSeqHeader.NAME)).getSeqNumber();
                d.sendAck(d.createAck(cseq));
                c.flow("ACK (fork " + tag + ")");
                if (!forksClosed.add(tag)) return; // a retransmission of that 2xx: ACKed again, BYE already sent
                Request bye = d.createRequest(Request.BYE);
                c.flow("BYE (fork " + tag + ")");
                ctx.ua().sendInDialog(d, bye, null);
                log.info("call {}: 2xx from another fork (To tag {}) ACKed and ended with BYE", c.id, tag);
            } catch (Exception e) {
                log.warn("call {}: the other fork's 2xx (To tag {}) not closed: {}", c.id, tag, e.toString());
            }
        }

        private final java.util.Set<String> forksClosed = new java.util.HashSet<>();

        private void failure(int code, String phrase) {
            if (code == SessionTimers.SESSION_INTERVAL_TOO_SMALL && retry422()) return;
            if (c.sipFinal == null) c.sipFinal = code;
            ctx.teardown().finish(c, phrase == null ? "rejected" : phrase.toLowerCase(), code);
        }

        /** RFC 4028 §7.4: 422 → the same INVITE again (next CSeq) with the interval it asks for; false = give up. */
        private boolean retry422() {
            if (c.state != CallState.CALLING && c.state != CallState.EARLY) return false;
            Response r422 = lastResponse;
            if (r422 == null || sessionTimers.retryInterval(c, r422) == null) return false;
            try {
                Request first = c.inviteTx.getRequest();
                long cseq = ((javax.sip.header.CSeqHeader) first.getHeader(javax.sip.header.CSeqHeader.NAME)).getSeqNumber();
                c.toTag = null;
                sendInvite(c, (SipURI) first.getRequestURI(), cseq + 1);
                return true;
            } catch (Exception e) {
                log.warn("INVITE after 422 for {} not sent: {}", c.id, e.toString());
                return false;
            }
        }

        @Override
        void timeout() {
            if (c.sipFinal == null) c.sipFinal = Response.REQUEST_TIMEOUT;
            ctx.teardown().finish(c, "timeout", Response.REQUEST_TIMEOUT);
        }
    }
}

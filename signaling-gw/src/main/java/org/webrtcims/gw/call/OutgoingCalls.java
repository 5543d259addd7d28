package org.webrtcims.gw.call;

import org.webrtcims.gw.sip.SipRequests;
import org.webrtcims.gw.sip.SipUserAgent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.media.ImsCodec;
import org.webrtcims.gw.sdp.MediaChange;
import org.webrtcims.gw.sip.RegistrationClient;
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

    private final SipUserAgent ua;
    private final SipRequests requests;
    private final CallMedia media;
    private final CallTeardown teardown;
    private final CallEventSink sink;
    private final CallRegistry registry;
    private final InviteTimeout inviteTimeout;
    private final RegistrationClient registration;
    private final DialogExtensions extensions;
    private final ConfirmedCalls confirmed;
    /** The SIP stack's in-dialog send for each call, made once (no lambda linked at a call: docs/architecture.md "Starting the gateway"). */
    private final InDialogSender inDialog;

    public OutgoingCalls(SipUserAgent ua, SipRequests requests, CallMedia media, CallTeardown teardown,
                         CallEventSink sink, CallRegistry registry, RegistrationClient registration,
                         DialogExtensions extensions, ConfirmedCalls confirmed, InviteTimeout inviteTimeout) {
        this.inviteTimeout = inviteTimeout;
        this.extensions = extensions;
        this.confirmed = confirmed;
        this.ua = ua;
        this.requests = requests;
        this.media = media;
        this.teardown = teardown;
        this.sink = sink;
        this.registry = registry;
        this.registration = registration;
        this.inDialog = ua::sendInDialog;
    }

    /**
     * Starts a call; the browser hears `calling` once the INVITE is out, before any SIP response can be handled.
     * imsCodec non-null forces that codec on the IMS leg (rtpengine transcodes, and then the call also
     * takes WebSocket `dtmf` at no extra cost); injectDtmf: the browser asked for WebSocket `dtmf` (`dtmf: "inject"`);
     * identity: the registered public user identity to call as (`call.identity`; null = the default public user
     * identity, TS 24.229 §5.1.2A.1.1); one outside the registered set is refused (`bad-identity`) before anything
     * is sent or allocated. The browser's SDP is read (bad-sdp, no-usable-address) by the call's media leg, once.
     */
    Call place(String token, String user, String to, String browserSdp, ImsCodec imsCodec, boolean injectDtmf, String identity) {
        String caller;
        try {
            caller = registration.callerIdentity(user, identity);
        } catch (org.webrtcims.gw.sip.RegisteredIdentities.NotRegistered e) {
            throw new CallFailure("bad-identity", e.getMessage());
        }
        String contactUser = registration.contactUser(user).orElse(null);
        if (contactUser == null) throw new CallFailure("bad-identity", user + " has no IMS registration to call from");
        SipURI callee;
        try {
            callee = requests.targetUri(to);
        } catch (java.text.ParseException e) {
            throw new CallFailure("bad-message", "cannot call '" + to + "': not a user name, SIP or tel URI");
        } catch (org.webrtcims.gw.sip.SipRequests.TargetRefused e) {
            throw new CallFailure("forbidden-target", e.getMessage());
        }
        Call c = new Call(ua.newCallId(), Direction.MO, token, user, callee.getUser() + "@" + callee.getHost(),
                SipUserAgent.newTag(), CallState.CALLING, media, inDialog);
        synchronized (c) {
            c.dialog().caller(caller, contactUser);
            MediaLeg leg = c.media();
            leg.choose(imsCodec, injectDtmf);
            // the browser's offer made into the INVITE's SDP, with the status lines an extension asks for (preconditions)
            leg.sentToIms(leg.bridgeBrowserOffer(browserSdp, extensions.offering(c)));
            registry.add(c);
            // `calling` after the INVITE (issue #26: the INVITE waits for no WebSocket write); responses wait for this lock
            try {
                sendInvite(c, callee, 1);
                sink.toBrowser(token, CallMessages.of("calling", c.id, "to", c.remote));
                inviteTimeout.start(c);
            } catch (Exception e) {
                sink.toBrowser(token, CallMessages.of("calling", c.id, "to", c.remote));
                log.warn("INVITE for {} not sent: {}", c.id, e.toString());
                teardown.finish(c, "sip-failed", null);
                throw new CallFailure("sip-failed", "cannot send INVITE: " + e.getMessage(), c.id);
            }
        }
        return c;
    }

    /** The INVITE (CSeq {@code cseq}: 1, or the next after a 422) with the call's SDP toward IMS; the caller holds the lock. */
    private void sendInvite(Call c, SipURI target, long cseq) throws Exception {
        Request invite = initialInvite(c, target, cseq);
        c.flow(Request.INVITE);
        c.dialog().inviteSent(ua.sendRequest(invite, new InviteResponses(c)));
    }

    /**
     * Call {@code c}'s initial INVITE to {@code target} (CSeq {@code cseq}), built, not sent: its caller identity and
     * contact user (c.dialog()), the registration's Service-Route, P-Preferred-Identity, the SDP toward IMS
     * (c.media()) and the extensions' headers. The start-up warm-up builds its INVITEs here too (SetupWarmup). The
     * caller holds the lock.
     */
    Request initialInvite(Call c, SipURI target, long cseq) throws Exception {
        // TS 24.229 §5.1.2A.1.1: From is the public user identity the call goes out as (the login name is no identity)
        javax.sip.address.Address caller = ua.addresses().createAddress(c.dialog().callerIdentity());
        Request invite = requests.newRequest(Request.INVITE, target, caller, c.fromTag,
                ua.addresses().createAddress(target), c.id, cseq, c.dialog().contactUser());
        // RFC 3608 / TS 24.229 §5.1.2A: after the P-CSCF, the Service-Route of the registration.
        for (javax.sip.address.Address hop : registration.serviceRoute(c.localUser)) {
            invite.addLast(ua.headers().createRouteHeader(hop));
        }
        // TS 24.229 §5.1.2A: the public user identity the user wants asserted; the P-CSCF replaces it by P-Asserted-Identity
        invite.setHeader(ua.headers().createHeader("P-Preferred-Identity", "<" + c.dialog().callerIdentity() + ">"));
        requests.setSdpBody(invite, c.media().imsSdp());
        extensions.initialInvite(c, invite); // 100rel, precondition, session timer
        return invite;
    }

    private final class InviteResponses extends CallResponses {
        InviteResponses(Call c) { super(c); }

        private Response lastResponse;

        @Override
        void response(ResponseEvent event, Response r, int code) {
            lastResponse = r;
            if (event.getClientTransaction() != null && event.getClientTransaction() != c.dialog().inviteTx()) { // an earlier INVITE's (422)
                log.debug("call {}: {} of an earlier INVITE ignored", c.id, code);
                return;
            }
            String tag = ((ToHeader) r.getHeader(ToHeader.NAME)).getTag();
            javax.sip.Dialog d = event.getDialog() != null ? event.getDialog() : c.dialog().sip();
            if (code >= 200 && code < 300) {
                success(r, d, tag);
                return;
            }
            // Forking (RFC 3261 §13.2.2.4, see Forking): the call follows the first early dialog until another is chosen
            c.dialog().followFirstFork(d, tag, c.outgoingEarly()); // rtpengine's answer names the callee's tag
            if (code < 200) provisional(r, d);
            else failure(code, r.getReasonPhrase());
        }

        private void provisional(Response r, javax.sip.Dialog d) {
            int code = r.getStatusCode();
            if (!c.outgoingEarly()) return;
            if (code == Response.TRYING) return;
            c.transition(CallState.EARLY);
            extensions.provisional(c, r, d); // PRACK when reliable, early media
        }

        private void success(Response r, javax.sip.Dialog d, String tag) {
            if (extensions.success(c, r, d)) return; // a second fork answered too: it gets ACK and BYE (Forking)
            boolean wanted = c.outgoingEarly();
            // the first 2xx wins: its dialog is the call's; another fork's early answer is replaced by its SDP
            boolean forkSwitch = wanted && c.dialog().otherFork(tag) && c.media().browserAnswer() != null;
            if (wanted || c.sipFinal() == null) c.dialog().follow(d, tag); // (ended before any 2xx: this one's dialog is closed below)
            c.ack(r, "the INVITE");
            if (!wanted) { // the browser hung up while the 200 was on its way: close the dialog we just got
                if (c.sipFinal() == null) {
                    c.finalStatus(r.getStatusCode());
                    teardown.sendBye(c);
                }
                return;
            }
            c.finalStatus(r.getStatusCode());
            String sdp = SipHeaders.sdp(r);
            boolean earlyAnswer = c.media().browserAnswer() != null;
            // no early answer (183): the 200 must carry it. After one, a 200 whose SDP differs (RFC 6337 §3.1 asks for
            // the same; UEs do change it) is given to rtpengine: the IMS side follows, the browser's side stays as it is.
            if (!earlyAnswer || (sdp != null && (forkSwitch || MediaChange.changes(c.media().imsRemoteSdp(), sdp)))) {
                try {
                    if (sdp == null) throw new CallFailure("bad-sdp", "200 OK without SDP and no earlier answer");
                    String browserAnswer = c.media().bridgeImsAnswer(sdp);
                    if (!earlyAnswer) c.media().browserAnswered(browserAnswer);
                    else log.info("call {}: the 200's SDP differs from the early answer's; rtpengine follows it", c.id);
                } catch (CallFailure f) {
                    sink.toBrowser(c.owner, CallMessages.of("error", c.id, "code", f.code(), "message", f.getMessage()));
                    teardown.sendBye(c);
                    teardown.finish(c, f.code(), c.sipFinal());
                    return;
                }
            }
            confirmed.mo(c); // CONFIRMED, the set-up time
            sink.toBrowser(c.owner, CallMessages.of("answered", c.id, "sdp", c.media().browserAnswer()));
            // after the answer went (issue #26): the media-start watch, the maximum length, the session timer, the meters
            confirmed.moTimers(c, r);
            registry.answered(c);
        }

        private void failure(int code, String phrase) {
            if (code == SessionTimer.SESSION_INTERVAL_TOO_SMALL && retry422()) return;
            c.finalStatusIfNone(code);
            teardown.finish(c, phrase == null ? "rejected" : phrase.toLowerCase(), code);
        }

        /** RFC 4028 §7.4: 422 → the same INVITE again (next CSeq) with the interval it asks for; false = give up. */
        private boolean retry422() {
            if (!c.outgoingEarly()) return false;
            Response r422 = lastResponse;
            if (r422 == null || !extensions.retryInvite(c, r422)) return false;
            try {
                Request first = c.dialog().inviteTx().getRequest();
                long cseq = ((javax.sip.header.CSeqHeader) first.getHeader(javax.sip.header.CSeqHeader.NAME)).getSeqNumber();
                c.dialog().forgetFork();
                sendInvite(c, (SipURI) first.getRequestURI(), cseq + 1);
                return true;
            } catch (Exception e) {
                log.warn("INVITE after 422 for {} not sent: {}", c.id, e.toString());
                return false;
            }
        }

        @Override
        void timeout() {
            c.finalStatusIfNone(Response.REQUEST_TIMEOUT);
            teardown.finish(c, "timeout", Response.REQUEST_TIMEOUT);
        }
    }
}

package org.webrtcims.gw.call;

import org.webrtcims.gw.sip.SipHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.media.ImsCodec;
import org.webrtcims.gw.sdp.QosPreconditions;
import org.webrtcims.gw.sip.RegistrationClient;
import org.webrtcims.gw.sip.ResponseHandler;
import org.webrtcims.gw.sip.SipIds;
import org.webrtcims.gw.sip.SipRequests;
import org.webrtcims.gw.sip.SipUserAgent;

import javax.sip.ResponseEvent;
import javax.sip.address.SipURI;
import javax.sip.header.CSeqHeader;
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
    private final LocalMediaWatch watch;
    private final CallTimers timers;
    private final RegistrationClient registration;
    private final boolean offerPreconditions;
    private final long inviteTimeoutMs;

    public OutgoingCalls(SipUserAgent ua, SipRequests requests, CallMedia media, CallTeardown teardown,
                         CallEventSink sink, CallRegistry registry, LocalMediaWatch watch, CallTimers timers,
                         RegistrationClient registration, GatewayProperties props) {
        this.ua = ua;
        this.requests = requests;
        this.media = media;
        this.teardown = teardown;
        this.sink = sink;
        this.registry = registry;
        this.watch = watch;
        this.timers = timers;
        this.registration = registration;
        this.offerPreconditions = props.getIms().isPreconditions();
        this.inviteTimeoutMs = props.getIms().getInviteTimeoutMs();
    }

    /** Starts a call; the browser hears `calling` before any SIP response can arrive. */
    Call place(String token, String user, String to, String browserSdp) {
        return place(token, user, to, browserSdp, null);
    }

    /** As above; imsCodec non-null forces that codec on the IMS leg (rtpengine transcodes). */
    Call place(String token, String user, String to, String browserSdp, ImsCodec imsCodec) {
        SipURI target;
        try {
            target = requests.target(to);
        } catch (java.text.ParseException e) {
            throw new CallFailure("bad-message", "cannot call '" + to + "': not a user name or SIP URI");
        }
        Call c = new Call(ua.newCallId(), Direction.MO, token, user, target.getUser() + "@" + target.getHost(),
                SipIds.tag(), CallState.CALLING);
        synchronized (c) {
            c.imsCodec = imsCodec;
            String imsSdp = media.offerFromBrowser(c, browserSdp);
            if (offerPreconditions) {
                // TS 24.229 originating UE: local segment mandatory, remote optional, nothing reserved yet.
                imsSdp = QosPreconditions.withStatus(imsSdp, new QosPreconditions.Status("none", "none", "optional", false));
            }
            c.imsSdp = imsSdp;
            registry.add(c);
            sink.toBrowser(token, CallMessages.of("calling", c.id, "to", c.remote));
            try {
                Request invite = requests.create(Request.INVITE, target, requests.aor(user), c.fromTag,
                        ua.addresses().createAddress(target), c.id, 1, user);
                requests.setSdpBody(invite, imsSdp);
                // RFC 3608 / TS 24.229 §5.1.2A: after the P-CSCF, the Service-Route of the registration.
                for (javax.sip.address.Address hop : registration.serviceRoute(user)) {
                    invite.addLast(ua.headers().createRouteHeader(hop));
                }
                invite.addHeader(ua.headers().createSupportedHeader("100rel"));
                if (offerPreconditions) invite.addHeader(ua.headers().createSupportedHeader("precondition"));
                c.flow(Request.INVITE);
                c.inviteTx = ua.send(invite, new InviteResponses(c));
                c.dialog = c.inviteTx.getDialog();
                timers.after(inviteTimeoutMs, () -> giveUp(c));
            } catch (Exception e) {
                log.warn("INVITE for {} not sent: {}", c.id, e.toString());
                teardown.finish(c, "sip-failed", null);
                throw new CallFailure("sip-failed", "cannot send INVITE: " + e.getMessage(), c.id);
            }
        }
        return c;
    }

    /** No final answer in time (provisionals stop Timer B, not this): CANCEL, and the browser hears 408. */
    private void giveUp(Call c) {
        synchronized (c) {
            if (c.state != CallState.CALLING && c.state != CallState.EARLY) return;
            c.sipFinal = Response.REQUEST_TIMEOUT;
            teardown.hangUp(c, "timeout");
        }
    }

    /** Sends UPDATE with the local segment met (RFC 3312 §5.1.1, TS 24.229 §6.1.2). */
    private void reportLocalQos(Call c) {
        synchronized (c) {
            if (c.state != CallState.EARLY) return; // answered already, or ended
            c.localQosMet = true;
            try {
                c.imsSdp = QosPreconditions.nextVersion(QosPreconditions.withStatus(c.imsSdp,
                        new QosPreconditions.Status("sendrecv", c.remoteQos, "optional", false)));
                Request update = c.dialog.createRequest(Request.UPDATE);
                requests.setSdpBody(update, c.imsSdp);
                update.addHeader(requests.contact(c.localUser));
                c.flow(Request.UPDATE);
                ua.sendInDialog(c.dialog, update, new ResponseHandler() {
                    @Override public void onResponse(ResponseEvent event) {
                        synchronized (c) {
                            c.flow(String.valueOf(event.getResponse().getStatusCode()));
                            String answer = SipHeaders.sdp(event.getResponse());
                            if (answer != null) c.remoteQos = QosPreconditions.peerLocalStatus(answer);
                        }
                    }
                    @Override public void onTimeout() { c.flow("timeout"); }
                });
            } catch (Exception e) {
                log.warn("UPDATE for {} not sent: {}", c.id, e.toString());
            }
        }
    }

    private final class InviteResponses implements ResponseHandler {
        private final Call c;

        InviteResponses(Call c) { this.c = c; }

        @Override
        public void onResponse(ResponseEvent event) {
            Response r = event.getResponse();
            int code = r.getStatusCode();
            synchronized (c) {
                c.flow(String.valueOf(code));
                if (event.getDialog() != null) c.dialog = event.getDialog();
                String tag = ((ToHeader) r.getHeader(ToHeader.NAME)).getTag();
                if (c.toTag == null && tag != null) c.toTag = tag; // rtpengine's answer names the callee's tag
                if (code < 200) provisional(r);
                else if (code < 300) success(r);
                else failure(code, r.getReasonPhrase());
            }
        }

        private void provisional(Response r) {
            int code = r.getStatusCode();
            if (c.state != CallState.CALLING && c.state != CallState.EARLY) return;
            if (code == Response.TRYING) return;
            c.state = CallState.EARLY;
            if (SipHeaders.requires(r, "100rel")) prack(r);
            String sdp = SipHeaders.sdp(r);
            if (sdp != null && c.browserAnswer == null) {
                if (!takeAnswer(sdp)) return;
                sink.toBrowser(c.owner, CallMessages.of("progress", c.id, "sipCode", code, "sdp", c.browserAnswer));
                if (offerPreconditions && QosPreconditions.present(sdp)) startQos(sdp);
                if (code != Response.RINGING) return;
            }
            if (code == Response.RINGING) sink.toBrowser(c.owner, CallMessages.of("ringing", c.id));
            else if (sdp == null) sink.toBrowser(c.owner, CallMessages.of("progress", c.id, "sipCode", code));
        }

        private void prack(Response r) {
            try {
                Request prack = c.dialog.createPrack(r);
                c.flow(Request.PRACK);
                ua.sendInDialog(c.dialog, prack, teardown.flowRecorder(c));
            } catch (Exception e) {
                log.warn("PRACK for {} not sent: {}", c.id, e.toString());
            }
        }

        /** rtpengine answer toward the browser from the IMS answer; false (call ended) on failure. */
        private boolean takeAnswer(String imsAnswer) {
            try {
                c.browserAnswer = media.answerFromIms(c, imsAnswer);
                return true;
            } catch (CallFailure f) {
                sink.toBrowser(c.owner, CallMessages.of("error", c.id, "code", f.code(), "message", f.getMessage()));
                teardown.hangUp(c, f.code());
                return false;
            }
        }

        /** Preconditions are in use: report local QoS with an UPDATE once the browser leg is up. */
        private void startQos(String answer) {
            c.qos = true;
            c.remoteQos = QosPreconditions.peerLocalStatus(answer);
            watch.start(c, () -> reportLocalQos(c), () -> teardown.hangUp(c, "preconditions-failed"));
        }

        private void success(Response r) {
            boolean wanted = c.state == CallState.CALLING || c.state == CallState.EARLY;
            ack(r);
            if (!wanted) { // the browser hung up while the 200 was on its way: close the dialog we just got
                if (c.sipFinal == null) {
                    c.sipFinal = r.getStatusCode();
                    teardown.sendBye(c);
                }
                return;
            }
            c.sipFinal = r.getStatusCode();
            String sdp = SipHeaders.sdp(r);
            if (c.browserAnswer == null) { // no early answer (183): the 200 must carry it
                try {
                    if (sdp == null) throw new CallFailure("bad-sdp", "200 OK without SDP and no earlier answer");
                    c.browserAnswer = media.answerFromIms(c, sdp);
                } catch (CallFailure f) {
                    sink.toBrowser(c.owner, CallMessages.of("error", c.id, "code", f.code(), "message", f.getMessage()));
                    teardown.sendBye(c);
                    teardown.finish(c, f.code(), c.sipFinal);
                    return;
                }
            }
            c.state = CallState.CONFIRMED;
            c.markSetupDone();
            sink.toBrowser(c.owner, CallMessages.of("answered", c.id, "sdp", c.browserAnswer));
        }

        private void ack(Response r) {
            try {
                long cseq = ((CSeqHeader) r.getHeader(CSeqHeader.NAME)).getSeqNumber();
                Request ack = c.dialog.createAck(cseq);
                c.dialog.sendAck(ack);
                c.flow(Request.ACK);
            } catch (Exception e) {
                log.warn("ACK for {} not sent: {}", c.id, e.toString());
            }
        }

        private void failure(int code, String phrase) {
            if (c.sipFinal == null) c.sipFinal = code;
            teardown.finish(c, phrase == null ? "rejected" : phrase.toLowerCase(), code);
        }

        @Override
        public void onTimeout() {
            synchronized (c) {
                c.flow("timeout");
                if (c.sipFinal == null) c.sipFinal = Response.REQUEST_TIMEOUT;
                teardown.finish(c, "timeout", Response.REQUEST_TIMEOUT);
            }
        }
    }
}

package org.webrtcims.gw.call;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
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

/** Browser-originated calls: rtpengine offer, INVITE toward IMS, provisional and final responses, ACK. */
@Component
public class OutgoingCalls {
    private static final Logger log = LoggerFactory.getLogger(OutgoingCalls.class);

    private final SipUserAgent ua;
    private final SipRequests requests;
    private final CallMedia media;
    private final CallTeardown teardown;
    private final CallEventSink sink;
    private final CallRegistry registry;

    public OutgoingCalls(SipUserAgent ua, SipRequests requests, CallMedia media, CallTeardown teardown,
                         CallEventSink sink, CallRegistry registry) {
        this.ua = ua;
        this.requests = requests;
        this.media = media;
        this.teardown = teardown;
        this.sink = sink;
        this.registry = registry;
    }

    /** Starts a call; the browser hears `calling` before any SIP response can arrive. */
    Call place(String token, String user, String to, String browserSdp) {
        SipURI target;
        try {
            target = requests.target(to);
        } catch (java.text.ParseException e) {
            throw new CallFailure("bad-message", "cannot call '" + to + "': not a user name or SIP URI");
        }
        Call c = new Call(ua.newCallId(), Direction.MO, token, user, target.getUser() + "@" + target.getHost(),
                SipIds.tag(), CallState.CALLING);
        synchronized (c) {
            String imsSdp = media.offerFromBrowser(c, browserSdp);
            registry.add(c);
            sink.toBrowser(token, CallMessages.of("calling", c.id, "to", c.remote));
            try {
                Request invite = requests.create(Request.INVITE, target, requests.aor(user), c.fromTag,
                        ua.addresses().createAddress(target), c.id, 1, user);
                requests.setSdpBody(invite, imsSdp);
                c.flow(Request.INVITE);
                c.inviteTx = ua.send(invite, new InviteResponses(c));
                c.dialog = c.inviteTx.getDialog();
            } catch (Exception e) {
                log.warn("INVITE for {} not sent: {}", c.id, e.toString());
                teardown.finish(c, "sip-failed", null);
                throw new CallFailure("sip-failed", "cannot send INVITE: " + e.getMessage());
            }
        }
        return c;
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
                if (code < 200) provisional(code);
                else if (code < 300) success(r);
                else failure(code, r.getReasonPhrase());
            }
        }

        private void provisional(int code) {
            if (c.state != CallState.CALLING && c.state != CallState.EARLY) return;
            if (code == Response.TRYING) return;
            c.state = CallState.EARLY;
            if (code == Response.RINGING) sink.toBrowser(c.owner, CallMessages.of("ringing", c.id));
            else sink.toBrowser(c.owner, CallMessages.of("progress", c.id, "sipCode", code));
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
            c.toTag = ((ToHeader) r.getHeader(ToHeader.NAME)).getTag();
            String browserSdp;
            try {
                if (r.getRawContent() == null) throw new CallFailure("bad-sdp", "200 OK without SDP");
                browserSdp = media.answerFromIms(c, new String(r.getRawContent(), java.nio.charset.StandardCharsets.UTF_8));
            } catch (CallFailure f) {
                sink.toBrowser(c.owner, CallMessages.of("error", c.id, "code", f.code(), "message", f.getMessage()));
                teardown.sendBye(c);
                teardown.finish(c, f.code(), c.sipFinal);
                return;
            }
            c.state = CallState.CONFIRMED;
            c.markSetupDone();
            sink.toBrowser(c.owner, CallMessages.of("answered", c.id, "sdp", browserSdp));
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

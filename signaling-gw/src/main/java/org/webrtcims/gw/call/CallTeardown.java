package org.webrtcims.gw.call;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.sip.ResponseHandler;
import org.webrtcims.gw.sip.SipUserAgent;

import javax.sip.ServerTransaction;
import javax.sip.message.Request;
import javax.sip.message.Response;

/** Ends calls: the SIP that leaves the gateway, the rtpengine session, the browser's `ended`. */
@Component
public class CallTeardown {
    private static final Logger log = LoggerFactory.getLogger(CallTeardown.class);

    private final SipUserAgent ua;
    private final CallReplies replies;
    private final CallMedia media;
    private final CallEventSink sink;
    private final CallRegistry registry;
    private volatile DialogStore dialogs; // lab.failover.redis only (docs/scale-out.md)

    public CallTeardown(SipUserAgent ua, CallReplies replies, CallMedia media, CallEventSink sink,
                        CallRegistry registry) {
        this.ua = ua;
        this.replies = replies;
        this.media = media;
        this.sink = sink;
        this.registry = registry;
    }

    @org.springframework.beans.factory.annotation.Autowired(required = false)
    void setDialogStore(DialogStore dialogs) { this.dialogs = dialogs; }

    /** Marks the call ended, releases its media and tells the browser. Caller holds the call's lock. */
    void finish(Call c, String reason, Integer sipCode) {
        if (!c.end(reason)) return;
        c.stopMaxLength();
        c.timer().cancel();
        closePendingReoffer(c);
        media.release(c);
        sink.toBrowser(c.owner, CallMessages.of("ended", c.id, "reason", reason, "sipCode", sipCode));
        registry.retire(c);
        DialogStore d = dialogs;
        if (d != null) d.ended(c.id);
    }

    /** The call was answered: the meters count it (see {@link CallRegistry#answered}). */
    void answered(Call c) { registry.answered(c); }

    /** Ends a call from the gateway's side (browser hang-up or reject, WebSocket loss, failure). */
    void hangUp(Call c, String reason) {
        synchronized (c) {
            switch (c.state()) {
                case CALLING, EARLY -> sendCancel(c);
                case CONFIRMED -> sendBye(c);
                case INCOMING -> rejectInvite(c, Response.DECLINE);
                case ANSWERING -> c.dialog().byeAfterAck(); // RFC 3261 §15: no BYE before the ACK of our 2xx
                case ENDED -> { return; }
            }
            finish(c, reason, c.sipFinal());
        }
    }

    /** An IMS re-offer still waiting for the browser's answer gets 487 (RFC 3261 §9.2). */
    private void closePendingReoffer(Call c) {
        ServerTransaction st = c.takeImsOffer();
        if (st != null) replies.send(c, st, Response.REQUEST_TERMINATED);
    }

    void sendBye(Call c) {
        try {
            Request bye = c.dialog().request(Request.BYE);
            c.flow(Request.BYE);
            c.dialog().send(bye, flowRecorder(c));
        } catch (Exception e) {
            log.warn("BYE for {} not sent: {}", c.id, e.toString());
        }
    }

    private void sendCancel(Call c) {
        try {
            Request cancel = c.dialog().inviteTx().createCancel();
            c.flow(Request.CANCEL);
            ua.sendRequest(cancel, flowRecorder(c));
        } catch (Exception e) {
            log.warn("CANCEL for {} not sent: {}", c.id, e.toString());
        }
    }

    /** A final response to the IMS INVITE of an MT call (sets sipFinal when it went). */
    void rejectInvite(Call c, int code) {
        if (replies.send(c, c.dialog().inviteServerTx(), code, c.dialog().toTag(), false, null)) c.finalStatus(code);
    }

    /** Records the final response of an in-dialog request or CANCEL in the call's SIP flow. */
    private ResponseHandler flowRecorder(Call c) {
        return new CallResponses(c, sink);
    }
}

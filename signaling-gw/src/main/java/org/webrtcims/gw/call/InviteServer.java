package org.webrtcims.gw.call;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import javax.sip.ServerTransaction;
import javax.sip.message.Response;

/**
 * The gateway's side of an IMS INVITE toward a browser (MT): 180, the 200, the ACK that confirms it (after an
 * offerless INVITE, with the IMS answer), and rejections (the reliable 183 is {@link ReliableProvisionals}'). Each records what it sent in the call's SIP flow; the caller holds the call's lock.
 */
@Component
public class InviteServer {
    private static final Logger log = LoggerFactory.getLogger(InviteServer.class);

    private final CallReplies replies;
    private final CallTeardown teardown;
    private final CallEventSink sink;
    private final ConfirmedCalls confirmed;

    public InviteServer(CallReplies replies, CallTeardown teardown, CallEventSink sink, ConfirmedCalls confirmed) {
        this.replies = replies;
        this.teardown = teardown;
        this.sink = sink;
        this.confirmed = confirmed;
    }

    /** 180 Ringing (with our Contact: it may set up the early dialog). */
    void ring(Call c) {
        if (replies.send(c, c.dialog().inviteServerTx(), Response.RINGING, c.dialog().toTag(), true, null)) {
            c.dialog().earlyDialogOfInvite();
        }
    }

    /** 200 OK to the INVITE (imsSdp null: the SDP went earlier, with preconditions); on failure the call ends and this throws. */
    void ok(Call c, String imsSdp) {
        try {
            ServerTransaction st = c.dialog().inviteServerTx();
            replies.sip().send(st, replies.build(c, st.getRequest(), Response.OK, c.dialog().toTag(), true, imsSdp));
        } catch (Exception e) {
            teardown.finish(c, "sip-failed", null);
            throw new CallFailure("sip-failed", "cannot send 200 OK: " + e.getMessage());
        }
        c.dialog().dialogOfInvite();
        c.flow(String.valueOf(Response.OK));
        c.finalStatus(Response.OK);
        c.transition(CallState.ANSWERING);
        teardown.answered(c);
    }

    /**
     * The ACK of the gateway's 200 (the call is ANSWERING): the call is confirmed; after an offerless INVITE the ACK
     * carries the IMS answer first.
     */
    void acked(Call c, String sdp) {
        if (c.offerless() && !offerlessAnswer(c, sdp)) return;
        confirmed.mt(c);
    }

    /**
     * MT offerless: the ACK carries the IMS answer to the offer in our 200 (RFC 3261 §13.2.1); rtpengine's answer
     * toward the browser goes as `answered`. No SDP, or one rtpengine refuses: BYE, the call ends. False then.
     */
    private boolean offerlessAnswer(Call c, String sdp) {
        try {
            if (sdp == null) throw new CallFailure("bad-sdp", "the ACK carried no SDP answer to the offer in the 200");
            c.media().browserAnswered(c.media().bridgeImsAnswer(sdp));
        } catch (CallFailure f) {
            log.info("call {}: offerless INVITE's ACK refused: {}", c.id, f.getMessage());
            sink.toBrowser(c.owner, CallMessages.of("error", c.id, "code", f.code(), "message", f.getMessage()));
            teardown.sendBye(c);
            teardown.finish(c, f.code(), c.sipFinal());
            return false;
        }
        sink.toBrowser(c.owner, CallMessages.of("answered", c.id, "sdp", c.media().browserAnswer()));
        return true;
    }

    /**
     * Refuses an INVITE before a call exists for it (480: nobody logged in to take it; 486, 503, 488: a quota), with a
     * To tag of its own.
     */
    void refuse(ServerTransaction st, int code) throws java.text.ParseException, javax.sip.SipException, javax.sip.InvalidArgumentException {
        replies.sip().send(st, code, org.webrtcims.gw.sip.SipUserAgent.newTag(), null, null);
    }

    /** Rejects the INVITE and ends the call with {@code reason} (its sipCode: what the rejection sent, if it went). */
    void reject(Call c, int code, String reason) {
        teardown.rejectInvite(c, code);
        teardown.finish(c, reason, c.sipFinal());
        log.debug("{} rejected with {}: {}", c.id, code, reason);
    }
}

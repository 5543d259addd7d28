package org.webrtcims.gw.call;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import javax.sip.ServerTransaction;
import javax.sip.message.Response;

/**
 * The gateway's side of an IMS INVITE toward a browser (MT): 180, the 200, and rejections (the reliable 183 is
 * {@link ReliableProvisionals}'). Each records what it sent in the call's SIP flow; the caller holds the call's lock.
 */
@Component
public class InviteServer {
    private static final Logger log = LoggerFactory.getLogger(InviteServer.class);

    private final CallReplies replies;
    private final CallTeardown teardown;

    public InviteServer(CallReplies replies, CallTeardown teardown) {
        this.replies = replies;
        this.teardown = teardown;
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

    /** Rejects the INVITE and ends the call with {@code reason} (its sipCode: what the rejection sent, if it went). */
    void reject(Call c, int code, String reason) {
        teardown.rejectInvite(c, code);
        teardown.finish(c, reason, c.sipFinal());
        log.debug("{} rejected with {}: {}", c.id, code, reason);
    }
}

package org.webrtcims.gw.call;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import javax.sip.header.ToHeader;
import javax.sip.message.Response;

/**
 * The gateway's side of an IMS INVITE toward a browser (MT): 180, the reliable 183 (RFC 3262), the 200, and
 * rejections. Each records what it sent in the call's SIP flow; the caller holds the call's lock.
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
        if (replies.send(c, c.inviteServerTx, Response.RINGING, c.toTag, true, null) && c.dialog == null) {
            c.dialog = c.inviteServerTx.getDialog();
        }
    }

    /** Reliable 183 with {@code Call.sdp.imsSdp}; on failure the INVITE is rejected, the call ends and this throws. */
    void reliableProgress(Call c) {
        try {
            Response progress = c.dialog.createReliableProvisionalResponse(Response.SESSION_PROGRESS);
            replies.sip().complete(progress, c.toTag, c.contactUser, c.sdp.imsSdp);
            c.toTag = ((ToHeader) progress.getHeader(ToHeader.NAME)).getTag();
            c.dialog.sendReliableProvisionalResponse(progress);
            c.flow(String.valueOf(Response.SESSION_PROGRESS));
        } catch (Exception e) {
            reject(c, Response.SERVER_INTERNAL_ERROR, "sip-failed");
            throw new CallFailure("sip-failed", "cannot send reliable 183: " + e.getMessage());
        }
    }

    /** 200 OK to the INVITE (imsSdp null: the SDP went earlier, with preconditions); on failure the call ends and this throws. */
    void ok(Call c, String imsSdp) {
        try {
            replies.sip().send(c.inviteServerTx, replies.build(c, c.inviteServerTx.getRequest(), Response.OK, c.toTag, true, imsSdp));
        } catch (Exception e) {
            teardown.finish(c, "sip-failed", null);
            throw new CallFailure("sip-failed", "cannot send 200 OK: " + e.getMessage());
        }
        c.dialog = c.inviteServerTx.getDialog();
        c.flow(String.valueOf(Response.OK));
        c.sipFinal = Response.OK;
        c.state = CallState.ANSWERING;
        teardown.answered(c);
    }

    /** Rejects the INVITE and ends the call with {@code reason} (its sipCode: what the rejection sent, if it went). */
    void reject(Call c, int code, String reason) {
        teardown.rejectInvite(c, code);
        teardown.finish(c, reason, c.sipFinal);
        log.debug("{} rejected with {}: {}", c.id, code, reason);
    }
}

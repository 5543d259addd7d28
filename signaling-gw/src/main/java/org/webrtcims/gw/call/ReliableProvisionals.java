package org.webrtcims.gw.call;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.sip.SipHeaders;
import org.webrtcims.gw.sip.SipReplies;
import org.webrtcims.gw.sip.SipUserAgent;

import javax.sip.ServerTransaction;
import javax.sip.header.ToHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * RFC 3262 (100rel/PRACK) on a call's dialog: the gateway's INVITEs say Supported: 100rel; a reliable provisional
 * from IMS (Require: 100rel) gets its PRACK on the fork's dialog; a PRACK from IMS gets 200; MT, the gateway's own
 * reliable 183 (with preconditions: {@link Preconditions}) goes through the dialog's reliable-provisional machinery.
 */
@Component
public class ReliableProvisionals implements DialogExtension {
    private static final Logger log = LoggerFactory.getLogger(ReliableProvisionals.class);
    static final String OPTION = "100rel";

    private final SipUserAgent ua;
    private final SipReplies sipReplies;
    private final CallReplies replies;
    private final CallEventSink sink;
    private final InviteServer inviteServer;

    public ReliableProvisionals(SipUserAgent ua, SipReplies sipReplies, CallReplies replies, CallEventSink sink,
                                InviteServer inviteServer) {
        this.ua = ua;
        this.sipReplies = sipReplies;
        this.replies = replies;
        this.sink = sink;
        this.inviteServer = inviteServer;
    }

    @Override
    public void initialInvite(Call c, Request invite) throws java.text.ParseException {
        invite.addHeader(ua.headers().createSupportedHeader(OPTION));
    }

    /** A reliable provisional (Require: 100rel) is PRACKed on the dialog of the fork that sent it. */
    @Override
    public void provisional(Call c, Response r, javax.sip.Dialog d) {
        if (!SipHeaders.requires(r, OPTION)) return;
        try {
            Request prack = Dialog.prack(d, r);
            c.flow(Request.PRACK);
            ua.sendInDialog(d, prack, new CallResponses(c, sink));
        } catch (Exception e) {
            log.warn("PRACK for {} not sent: {}", c.id, e.toString());
        }
    }

    /** A PRACK from IMS (of our reliable 183) gets 200. */
    @Override
    public boolean request(ServerTransaction st, Call c, String offer) {
        if (!Request.PRACK.equals(st.getRequest().getMethod())) return false;
        replies.send(c, st, Response.OK);
        return true;
    }

    /**
     * MT: a reliable 183 with the SDP the call last gave IMS ({@link MediaLeg#imsSdp}); on failure the INVITE is
     * rejected, the call ends and this throws.
     */
    void sessionProgress(Call c) {
        try {
            javax.sip.Dialog d = c.dialog().sip();
            Response progress = d.createReliableProvisionalResponse(Response.SESSION_PROGRESS);
            sipReplies.complete(progress, c.dialog().toTag(), c.dialog().contactUser(), c.media().imsSdp());
            c.dialog().localTag(((ToHeader) progress.getHeader(ToHeader.NAME)).getTag());
            d.sendReliableProvisionalResponse(progress);
            c.flow(String.valueOf(Response.SESSION_PROGRESS));
        } catch (Exception e) {
            inviteServer.reject(c, Response.SERVER_INTERNAL_ERROR, "sip-failed");
            throw new CallFailure("sip-failed", "cannot send reliable 183: " + e.getMessage());
        }
    }
}

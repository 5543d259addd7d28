package org.webrtcims.gw.call;

import org.springframework.stereotype.Component;

import javax.sip.ServerTransaction;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * RFC 3311 UPDATE from IMS, what the other extensions leave: one without SDP (a session refresh, RFC 4028, whose
 * timer {@link SessionTimers} restarted; or an early-dialog UPDATE) gets 200, with the session timer headers in an
 * answered call; one with an offer before the answer and without preconditions gets 488 (the gateway takes no
 * offer there). Mid-call offers are {@link MidCallOffers}', precondition status reports {@link Preconditions}'.
 */
@Component
public class Updates implements DialogExtension {
    private final CallReplies replies;

    public Updates(CallReplies replies) { this.replies = replies; }

    @Override
    public boolean request(ServerTransaction st, Call c, String offer) {
        if (!Request.UPDATE.equals(st.getRequest().getMethod())) return false;
        replies.send(c, st, offer == null ? Response.OK : Response.NOT_ACCEPTABLE_HERE);
        return true;
    }
}

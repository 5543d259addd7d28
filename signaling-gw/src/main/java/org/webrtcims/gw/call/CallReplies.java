package org.webrtcims.gw.call;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.sip.SipReplies;

import javax.sip.ServerTransaction;

/** A response on one of a call's server transactions, recorded in the call's SIP flow (sip/SipReplies builds it). */
@Component
public class CallReplies {
    private static final Logger log = LoggerFactory.getLogger(CallReplies.class);

    private final SipReplies replies;

    public CallReplies(SipReplies replies) { this.replies = replies; }

    SipReplies sip() { return replies; }

    /**
     * Sends {@code code} (see {@link SipReplies#build} for toTag, contact and sdp; contact = the call's browser user);
     * false, logged, when it could not be sent. The caller holds the call's lock.
     */
    boolean send(Call c, ServerTransaction st, int code, String toTag, boolean contact, String sdp) {
        try {
            st.sendResponse(build(c, st.getRequest(), code, toTag, contact, sdp));
            c.flow(String.valueOf(code));
            return true;
        } catch (Exception e) {
            log.warn("{} to {} for {} not sent: {}", code, st.getRequest().getMethod(), c.id, e.toString());
            return false;
        }
    }

    /** Builds a response as {@link SipReplies#build}, with the session timer headers of a 2xx (RFC 4028, {@link SessionTimer#responseHeaders}). */
    javax.sip.message.Response build(Call c, javax.sip.message.Request req, int code, String toTag, boolean contact, String sdp)
            throws java.text.ParseException {
        javax.sip.message.Response r = replies.build(req, code, toTag, contact ? c.dialog().contactUser() : null, sdp);
        c.timer().responseHeaders(req, r, c.state() == CallState.CONFIRMED, replies.headers());
        return r;
    }

    /** A bare response (no Contact, no body). */
    boolean send(Call c, ServerTransaction st, int code) { return send(c, st, code, null, false, null); }
}

package org.webrtcims.gw.sip;

import org.springframework.stereotype.Component;

import javax.sip.InvalidArgumentException;
import javax.sip.ServerTransaction;
import javax.sip.SipException;
import javax.sip.header.ToHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.text.ParseException;

/**
 * The one place SIP responses are built: status line from the request, a To tag where the request had none,
 * the Contact of the browser user the gateway answers for, an SDP body.
 */
@Component
public class SipReplies {
    private final SipUserAgent ua;
    private final SipRequests requests;

    public SipReplies(SipUserAgent ua, SipRequests requests) {
        this.ua = ua;
        this.requests = requests;
    }

    /**
     * A response to {@code req}. toTag: set when the request's To has no tag (null = leave it as it is);
     * contactUser: a Contact for that user (null = none); sdp: the body (null = none).
     */
    public Response build(Request req, int code, String toTag, String contactUser, String sdp) throws ParseException {
        return complete(ua.response(code, req), toTag, contactUser, sdp);
    }

    /** Adds the To tag, Contact and body as {@link #build} does, to a response made elsewhere (e.g. a reliable 1xx). */
    public Response complete(Response r, String toTag, String contactUser, String sdp) throws ParseException {
        if (toTag != null && r.getHeader(ToHeader.NAME) instanceof ToHeader to && to.getTag() == null) to.setTag(toTag);
        if (contactUser != null) r.addHeader(requests.contact(contactUser));
        if (sdp != null) requests.setSdpBody(r, sdp);
        return r;
    }

    /** Builds as {@link #build} and sends it on the transaction. */
    public void send(ServerTransaction st, int code, String toTag, String contactUser, String sdp)
            throws ParseException, SipException, InvalidArgumentException {
        st.sendResponse(build(st.getRequest(), code, toTag, contactUser, sdp));
    }

    /** Sends a response built elsewhere on its transaction (through the UA: a 2xx to an INVITE marks the set-up timeline). */
    public void send(ServerTransaction st, Response r) throws SipException, InvalidArgumentException {
        st.sendResponse(r);
        ua.responded(st, r);
    }

    /** The stack's header factory (extension headers on a response before it goes). */
    public javax.sip.header.HeaderFactory headers() { return ua.headers(); }

    /** A bare response: no tag, no Contact, no body. */
    public void send(ServerTransaction st, int code) throws ParseException, SipException, InvalidArgumentException {
        send(st, code, null, null, null);
    }
}

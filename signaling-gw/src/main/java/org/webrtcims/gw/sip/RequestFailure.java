package org.webrtcims.gw.sip;

import javax.sip.InvalidArgumentException;
import javax.sip.SipException;
import javax.sip.header.HeaderFactory;
import javax.sip.message.Response;
import java.text.ParseException;

/**
 * What a SIP peer is told when the gateway failed on its request: never 500 for the peer's input. A request the
 * gateway could not read (a missing or odd header its handler tripped over: a runtime or parse failure) gets
 * 400 with a Warning (RFC 3261 §20.43, code 399) saying so; only a failure of the gateway's own SIP stack while
 * answering (it could not send or build a message) is a 500. The text names no exception or class: the stack
 * trace goes to the gateway's log once, by the caller.
 */
public record RequestFailure(int status, String warning) {
    /** The Warning's text for a request the gateway could not read. */
    public static final String UNREADABLE = "the gateway could not process this request (a header it needs is missing or malformed)";
    /** The Warning's text when the gateway's own stack failed. */
    public static final String INTERNAL = "the gateway failed while handling this request";

    public static RequestFailure of(Throwable e) {
        if (e instanceof SipException || e instanceof InvalidArgumentException) {
            return new RequestFailure(Response.SERVER_INTERNAL_ERROR, INTERNAL);
        }
        if (e instanceof ParseException || e instanceof RuntimeException) return new RequestFailure(Response.BAD_REQUEST, UNREADABLE);
        return new RequestFailure(Response.SERVER_INTERNAL_ERROR, INTERNAL);
    }

    /** Adds the Warning (399, the agent = the gateway's SIP host) to a response with this status. */
    public void addWarning(Response r, HeaderFactory headers, String agent) {
        try {
            r.addHeader(headers.createWarningHeader(agent == null || agent.isBlank() ? "gateway" : agent, 399, warning));
        } catch (ParseException | InvalidArgumentException e) {
            // a Warning is an extra: the status line alone still says what was wrong
        }
    }
}

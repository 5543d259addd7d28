package org.webrtcims.gw.call;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.webrtcims.gw.sip.ResponseHandler;

import javax.sip.ResponseEvent;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * The responses to a request the gateway sent for a call (INVITE, re-INVITE, UPDATE, PRACK, BYE, CANCEL):
 * each is recorded in the call's SIP flow ("timeout" for none) and then handled under the call's lock.
 * An in-dialog request (BYE, re-INVITE, UPDATE, PRACK) that fails — a final 3xx-6xx (e.g. 478 from a proxy
 * that cannot reach a GRUU contact) or no answer — is never silent: it is logged with its status, kept in the
 * call's `failedRequests` (GET /api/v1/calls/{id}) and, with a sink, sent to the browser as
 * `sip-failure {callId, method, sipCode, reason}` (sipCode 408 and reason "no response" for a timeout).
 * A CANCEL's failure is not reported (481/200 races with the final response are normal).
 */
class CallResponses implements ResponseHandler {
    private static final Logger log = LoggerFactory.getLogger(CallResponses.class);

    final Call c;
    private final CallEventSink sink;
    /** The request's method and whether it went inside the dialog (a To tag), set when it is sent. */
    private volatile String method;
    private volatile boolean inDialog;

    CallResponses(Call c) { this(c, null); }

    /** As above, telling the call's browser of a failed in-dialog request (`sip-failure`). */
    CallResponses(Call c, CallEventSink sink) {
        this.c = c;
        this.sink = sink;
    }

    @Override
    public void sending(Request request) {
        method = request.getMethod();
        inDialog = request.getHeader(javax.sip.header.ToHeader.NAME) instanceof javax.sip.header.ToHeader to && to.getTag() != null;
    }

    @Override
    public final void onResponse(ResponseEvent event) {
        Response r = event.getResponse();
        synchronized (c) {
            c.flow(String.valueOf(r.getStatusCode()));
            if (r.getStatusCode() >= 300) failed(r.getStatusCode(), r.getReasonPhrase());
            response(event, r, r.getStatusCode());
        }
    }

    @Override
    public final void onTimeout() {
        synchronized (c) {
            c.flow("timeout");
            failed(Response.REQUEST_TIMEOUT, "no response");
            timeout();
        }
    }

    /** Logs and reports a failed in-dialog request; the call's lock is held. */
    private void failed(int code, String reason) {
        String m = method;
        if (m == null || !inDialog || Request.CANCEL.equals(m) || Request.ACK.equals(m)) return;
        String phrase = reason == null ? "" : reason.length() > 100 ? reason.substring(0, 100) : reason;
        log.warn("call {}: the gateway's {} failed: {} {} (call state {}{})", c.id, m, code, phrase, c.state(),
                c.ended() ? ", ended " + c.endReason() : "");
        c.requestFailed(m + " " + code + (phrase.isEmpty() ? "" : " " + phrase));
        if (sink != null) sink.toBrowser(c.owner, CallMessages.of("sip-failure", c.id, "method", m, "sipCode", code, "reason", phrase));
    }

    /** A response, already in the flow; the call's lock is held. Nothing more by default. */
    void response(ResponseEvent event, Response r, int code) { }

    /** No response in time, already in the flow; the call's lock is held. Nothing more by default. */
    void timeout() { }
}

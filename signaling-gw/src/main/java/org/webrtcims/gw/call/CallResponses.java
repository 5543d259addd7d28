package org.webrtcims.gw.call;

import org.webrtcims.gw.sip.ResponseHandler;

import javax.sip.ResponseEvent;
import javax.sip.message.Response;

/**
 * The responses to a request the gateway sent for a call (INVITE, re-INVITE, UPDATE, PRACK, BYE, CANCEL):
 * each is recorded in the call's SIP flow ("timeout" for none) and then handled under the call's lock.
 */
class CallResponses implements ResponseHandler {
    final Call c;

    CallResponses(Call c) { this.c = c; }

    @Override
    public final void onResponse(ResponseEvent event) {
        Response r = event.getResponse();
        synchronized (c) {
            c.flow(String.valueOf(r.getStatusCode()));
            response(event, r, r.getStatusCode());
        }
    }

    @Override
    public final void onTimeout() {
        synchronized (c) {
            c.flow("timeout");
            timeout();
        }
    }

    /** A response, already in the flow; the call's lock is held. Nothing more by default. */
    void response(ResponseEvent event, Response r, int code) { }

    /** No response in time, already in the flow; the call's lock is held. Nothing more by default. */
    void timeout() { }
}

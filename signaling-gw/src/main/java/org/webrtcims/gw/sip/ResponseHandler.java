package org.webrtcims.gw.sip;

import javax.sip.ResponseEvent;

/** Receives the responses of one client transaction (provisional and final), or its timeout. */
public interface ResponseHandler {
    void onResponse(ResponseEvent event);

    void onTimeout();

    /** The request is about to go in this handler's transaction (the gateway's SIP user agent calls it). */
    default void sending(javax.sip.message.Request request) { }
}

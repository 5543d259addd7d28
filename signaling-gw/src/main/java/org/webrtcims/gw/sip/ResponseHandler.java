package org.webrtcims.gw.sip;

import javax.sip.ResponseEvent;

/** Receives the responses of one client transaction (provisional and final), or its timeout. */
public interface ResponseHandler {
    void onResponse(ResponseEvent event);

    void onTimeout();
}

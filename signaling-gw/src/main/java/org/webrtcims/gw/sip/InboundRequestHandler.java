package org.webrtcims.gw.sip;

import javax.sip.RequestEvent;

/** Takes the requests the IMS side sends to the gateway (INVITE, ACK, BYE, CANCEL, …). */
public interface InboundRequestHandler {
    void onRequest(RequestEvent event);
}

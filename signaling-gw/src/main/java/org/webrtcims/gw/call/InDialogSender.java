package org.webrtcims.gw.call;

import org.webrtcims.gw.sip.ResponseHandler;

import javax.sip.ClientTransaction;
import javax.sip.SipException;
import javax.sip.message.Request;

/** How a call's {@link Dialog} sends its requests: the SIP stack's in-dialog send (sip/SipUserAgent#sendInDialog). */
@FunctionalInterface
interface InDialogSender {
    ClientTransaction send(javax.sip.Dialog dialog, Request request, ResponseHandler handler) throws SipException;
}

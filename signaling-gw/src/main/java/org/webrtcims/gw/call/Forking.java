package org.webrtcims.gw.call;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.sip.SipHeaders;
import org.webrtcims.gw.sip.SipUserAgent;

import javax.sip.header.CSeqHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * Forking of an MO INVITE (RFC 3261 §13.2.2.4): each early dialog has its own To tag and dialog; the call follows the
 * first one, or the one whose SDP answer the browser got ({@link EarlyMedia}), and at last the one that answers 2xx
 * ({@link Dialog#followFirstFork}, {@link Dialog#follow}). A 2xx from another fork after the call's own is ACKed and
 * ended with BYE on that fork's dialog, once (a retransmission of it is ACKed again).
 */
@Component
public class Forking implements DialogExtension {
    private static final Logger log = LoggerFactory.getLogger(Forking.class);

    private final SipUserAgent ua;

    public Forking(SipUserAgent ua) { this.ua = ua; }

    /** A 2xx of another fork after the call's final response: closed here (true). */
    @Override
    public boolean success(Call c, Response r, javax.sip.Dialog d) {
        String tag = SipHeaders.toTag(r);
        if (c.outgoingEarly() || c.sipFinal() == null || !c.dialog().otherFork(tag)) return false;
        try {
            long cseq = ((CSeqHeader) r.getHeader(CSeqHeader.NAME)).getSeqNumber();
            d.sendAck(d.createAck(cseq));
            c.flow("ACK (fork " + tag + ")");
            if (!c.dialog().forkClosed(tag)) return true; // a retransmission of that 2xx: ACKed again, BYE already sent
            Request bye = d.createRequest(Request.BYE);
            c.flow("BYE (fork " + tag + ")");
            ua.sendInDialog(d, bye, null);
            log.info("call {}: 2xx from another fork (To tag {}) ACKed and ended with BYE", c.id, tag);
        } catch (Exception e) {
            log.warn("call {}: the other fork's 2xx (To tag {}) not closed: {}", c.id, tag, e.toString());
        }
        return true;
    }
}

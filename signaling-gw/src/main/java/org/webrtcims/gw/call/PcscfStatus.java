package org.webrtcims.gw.call;

import org.springframework.stereotype.Component;
import org.webrtcims.gw.sip.SipUserAgent;

/** What the browser face (api: health) may know of the P-CSCF in use (sip/Pcscf): its target and the transport. */
@Component
public class PcscfStatus {
    private final SipUserAgent ua;

    public PcscfStatus(SipUserAgent ua) { this.ua = ua; }

    /** ADDR:PORT of the P-CSCF target in use, or null while lab.ims.proxy's name is not found (the log says why). */
    public String target() {
        try {
            return ua.pcscf().current().hostPort();
        } catch (IllegalStateException e) {
            return null;
        }
    }

    /** udp, tcp or tls toward it. */
    public String transport() { return ua.pcscf().transport(); }
}

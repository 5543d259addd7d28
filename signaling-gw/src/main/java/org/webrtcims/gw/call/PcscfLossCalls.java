package org.webrtcims.gw.call;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.sip.SipUserAgent;

/**
 * When the P-CSCF stops answering and registration moves to the next target of lab.ims.proxy (sip/Pcscf, RFC 3263),
 * the calls in progress went through the dead one: their dialogs' route sets lead there, so they end now with reason
 * {@value #REASON} (a BYE or CANCEL is still sent, in case the P-CSCF only lost the registrations).
 */
@Component
public class PcscfLossCalls {
    static final String REASON = "pcscf-unreachable";
    private static final Logger log = LoggerFactory.getLogger(PcscfLossCalls.class);

    public PcscfLossCalls(SipUserAgent ua, CallRegistry registry, CallTeardown teardown) {
        ua.pcscf().onFailover((failed, why) -> {
            var live = registry.live();
            if (!live.isEmpty()) log.warn("ending {} call(s) through the P-CSCF {} ({}): {}", live.size(), failed, why, REASON);
            live.forEach(c -> teardown.hangUp(c, REASON));
        });
    }
}

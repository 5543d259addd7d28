package org.webrtcims.gw.call;

import org.springframework.stereotype.Component;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.sip.SipRequests;
import org.webrtcims.gw.sip.SipUserAgent;

/** What every piece of the call layer works with: the SIP stack, rtpengine, teardown, the browser, the live calls. */
@Component
public record CallContext(SipUserAgent ua, SipRequests requests, CallReplies replies, CallMedia media,
                          CallTeardown teardown, CallEventSink sink, CallRegistry registry, CallTimers timers,
                          GatewayProperties props) {
}

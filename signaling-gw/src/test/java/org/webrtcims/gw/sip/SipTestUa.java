package org.webrtcims.gw.sip;

import javax.sip.message.Request;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

/** A mocked SipUserAgent that hands out the real JAIN-SIP factories of {@link SipFixtures} (no stack, no socket). */
final class SipTestUa {
    private SipTestUa() { }

    static SipUserAgent withFactories() throws Exception {
        SipUserAgent ua = mock(SipUserAgent.class);
        when(ua.addresses()).thenReturn(SipFixtures.ADDRESSES);
        when(ua.headers()).thenReturn(SipFixtures.HEADERS);
        when(ua.messages()).thenReturn(SipFixtures.MESSAGES);
        when(ua.transport()).thenReturn("udp");
        when(ua.response(anyInt(), any())).thenAnswer(i -> SipFixtures.MESSAGES.createResponse(i.getArgument(0), (Request) i.getArgument(1)));
        return ua;
    }
}

package org.webrtcims.gw.call;

import org.junit.jupiter.api.Test;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.sip.Pcscf;
import org.webrtcims.gw.sip.SipUserAgent;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.*;

/** When registration moves to another P-CSCF, the calls in progress (through the dead one) end pcscf-unreachable. */
class PcscfLossCallsTest {
    @Test
    void aFailoverEndsEveryLiveCallWithItsReasonAndNothingElseDoes() {
        GatewayProperties props = new GatewayProperties();
        props.getIms().setProxy("127.0.0.1:5060");
        Pcscf pcscf = spy(new Pcscf(props));
        SipUserAgent ua = mock(SipUserAgent.class);
        when(ua.pcscf()).thenReturn(pcscf);
        CallRegistry registry = mock(CallRegistry.class);
        CallTeardown teardown = mock(CallTeardown.class);
        Call a = mock(Call.class), b = mock(Call.class);
        when(registry.live()).thenReturn(List.of(a, b));
        java.util.concurrent.atomic.AtomicReference<java.util.function.BiConsumer<org.webrtcims.gw.sip.PcscfResolver.Target, String>> listener =
                new java.util.concurrent.atomic.AtomicReference<>();
        doAnswer(i -> { listener.set(i.getArgument(0)); return null; }).when(pcscf).onFailover(any());
        new PcscfLossCalls(ua, registry, teardown);
        assertTrue(listener.get() != null, "PcscfLossCalls did not listen for failovers");
        verifyNoInteractions(teardown);
        listener.get().accept(pcscf.current(), "did not answer the REGISTER");
        verify(teardown).hangUp(a, "pcscf-unreachable");
        verify(teardown).hangUp(b, "pcscf-unreachable");
        verifyNoMoreInteractions(teardown);
    }
}

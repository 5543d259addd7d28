package org.webrtcims.gw.call;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.webrtcims.gw.media.NgException;
import org.webrtcims.gw.media.RtpEngineClient;
import org.webrtcims.gw.media.RtpEngineRelays;

/** The browser face's view of the relays, and a failed `list` as the API's `media-failed`. */
class RelayStatusTest {
    private final RtpEngineClient rtp = mock(RtpEngineClient.class);
    private final RtpEngineRelays relays = mock(RtpEngineRelays.class);
    private final RelayStatus status = new RelayStatus(rtp);

    @Test
    void healthAndCallsPerRelayComeFromTheRelaySet() {
        when(rtp.relays()).thenReturn(relays);
        when(relays.pingEach()).thenReturn(Map.of("127.0.0.1:2223", true));
        when(relays.callsPerRelay()).thenReturn(Map.of("127.0.0.1:2223", 3));
        assertEquals(Map.of("127.0.0.1:2223", true), status.pingEach());
        assertEquals(Map.of("127.0.0.1:2223", 3), status.callsPerRelay());
    }

    @Test
    void sessionsAreTheGatewaysAndAFailedListIsMediaFailed() throws Exception {
        when(rtp.list()).thenReturn(List.of("a", "b"));
        assertEquals(List.of("a", "b"), status.sessions());
        when(rtp.list()).thenThrow(new NgException(NgException.Kind.TIMEOUT, "no reply from rtpengine"));
        CallFailure e = assertThrows(CallFailure.class, status::sessions);
        assertEquals("media-failed", e.code());
        assertEquals("rtpengine list failed: no reply from rtpengine", e.getMessage());
    }
}

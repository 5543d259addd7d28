package org.webrtcims.gw.api;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.web.MockHttpServletRequest;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.call.RelayStatus;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

/** `/api/v1/health`: up/down (200/503) for anyone, the details only on the gateway's host or with a live token. */
class HealthTest {
    private final RelayStatus rtp = mock(RelayStatus.class);
    private final SessionRegistry sessions = mock(SessionRegistry.class);
    private LabController lab;

    @BeforeEach
    void setUp() {
        when(rtp.callsPerRelay()).thenReturn(Map.of("127.0.0.1:2223", 2));
        when(sessions.byToken("live")).thenReturn(Optional.of(new BrowserSession("live", "alice", Long.MAX_VALUE)));
        when(sessions.byToken("gone")).thenReturn(Optional.empty());
        lab = new LabController(rtp, new GatewayProperties(), sessions, org.mockito.Mockito.mock(org.webrtcims.gw.call.PcscfStatus.class));
    }

    private ResponseEntity<Map<String, Object>> health(String remote, String auth, boolean... relaysUp) {
        Map<String, Boolean> relays = new LinkedHashMap<>();
        for (int i = 0; i < relaysUp.length; i++) relays.put("127.0.0.1:" + (2223 + i), relaysUp[i]);
        when(rtp.pingEach()).thenReturn(relays);
        MockHttpServletRequest req = new MockHttpServletRequest("GET", "/api/v1/health");
        req.setRemoteAddr(remote);
        req.setLocalAddr("198.18.0.1");
        return lab.health(auth, req);
    }

    @Test
    void othersLearnOnlyUpOrDown() {
        var r = health("198.18.0.2", null, true);
        assertEquals(200, r.getStatusCode().value());
        assertEquals(Map.of("status", "up"), r.getBody(), "nothing of the topology for a remote client without a token");
        assertEquals(Map.of("status", "up"), health("198.18.0.2", "Bearer gone", true).getBody(), "an ended token is no token");
        assertEquals(Map.of("status", "up"), health("198.18.0.2", "live", true).getBody(), "the header needs 'Bearer '");
        var down = health("198.18.0.2", null, false);
        assertEquals(503, down.getStatusCode().value());
        assertEquals(Map.of("status", "down"), down.getBody());
    }

    @Test
    void detailsOnTheHostOrWithAToken() {
        for (var r : new ResponseEntity[] {health("127.0.0.1", null, true, false), health("198.18.0.1", null, true, false),
                health("198.18.0.2", "Bearer live", true, false)}) {
            @SuppressWarnings("unchecked") Map<String, Object> b = (Map<String, Object>) r.getBody();
            assertEquals(200, r.getStatusCode().value(), String.valueOf(b));
            assertEquals("up", b.get("status"));
            assertEquals("degraded", b.get("rtpengine"), "one of two relays answers: " + b);
            assertTrue(b.containsKey("sip") && b.containsKey("imsProxy") && b.containsKey("imsTransport"), String.valueOf(b));
            assertEquals(Map.of("status", "ok", "calls", 2), ((Map<?, ?>) b.get("rtpengines")).get("127.0.0.1:2223"), String.valueOf(b));
        }
        var down = health("127.0.0.1", null, false);
        assertEquals(503, down.getStatusCode().value());
        assertEquals("down", down.getBody().get("rtpengine"), String.valueOf(down.getBody()));
    }
}

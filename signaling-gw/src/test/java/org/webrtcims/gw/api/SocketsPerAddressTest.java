package org.webrtcims.gw.api;

import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;
import org.springframework.web.socket.CloseStatus;
import org.springframework.web.socket.TextMessage;
import org.springframework.web.socket.WebSocketHandler;
import org.springframework.web.socket.WebSocketSession;
import org.webrtcims.gw.metrics.GatewayMetrics;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.Mockito.*;

/** lab.api.ws-connections-per-address: counting per source address, loopback not counted, the refusal. */
class SocketsPerAddressTest {
    static InetAddress ip(String s) throws Exception { return InetAddress.getByName(s); }

    @Test
    void countsOpenSocketsPerAddressAndGivesTicketsBackOnce() throws Exception {
        SocketsPerAddress p = new SocketsPerAddress(2);
        InetAddress a = ip("198.18.0.2");
        SocketsPerAddress.Ticket t1 = p.tryOpen(a);
        SocketsPerAddress.Ticket t2 = p.tryOpen(a);
        assertNotNull(t1);
        assertNotNull(t2);
        assertNull(p.tryOpen(a), "the third socket from one address is refused");
        assertNotNull(p.tryOpen(ip("198.18.0.3")), "another address has its own count");
        t1.release();
        t1.release(); // a second release (close after a failed handshake) gives nothing back twice
        assertEquals(1, p.openFrom(a));
        assertNotNull(p.tryOpen(a));
        assertNull(p.tryOpen(a));
    }

    @Test
    void loopbackIsNotCountedAndZeroIsNoLimit() throws Exception {
        SocketsPerAddress p = new SocketsPerAddress(1);
        for (int i = 0; i < 50; i++) assertNotNull(p.tryOpen(ip("127.0.0.1")));
        assertNotNull(p.tryOpen(ip("::1")));
        assertEquals(0, p.openFrom(ip("127.0.0.1")));
        SocketsPerAddress off = new SocketsPerAddress(0);
        for (int i = 0; i < 50; i++) assertNotNull(off.tryOpen(ip("198.18.0.2")));
    }

    @Test
    void aRefusedSocketGetsTooManyConnectionsAndCloseCode4429AndNeverReachesTheHandler() throws Exception {
        WebSocketHandler handler = mock(WebSocketHandler.class);
        GatewayMetrics metrics = mock(GatewayMetrics.class);
        WebSocketMeter meter = new WebSocketMeter(handler, metrics, new SocketsPerAddress(20), events());
        WebSocketSession ws = mock(WebSocketSession.class);
        when(ws.isOpen()).thenReturn(true);
        Map<String, Object> attrs = new HashMap<>(Map.of(WebSocketMeter.REFUSED_ATTR, "198.18.0.2"));
        when(ws.getAttributes()).thenReturn(attrs);
        meter.afterConnectionEstablished(ws);
        ArgumentCaptor<TextMessage> sent = ArgumentCaptor.forClass(TextMessage.class);
        verify(ws).sendMessage(sent.capture());
        assertTrue(sent.getValue().getPayload().contains("\"code\":\"too-many-connections\""), sent.getValue().getPayload());
        assertTrue(sent.getValue().getPayload().contains("more than 20 WebSockets from 198.18.0.2"), sent.getValue().getPayload());
        verify(ws).close(new CloseStatus(4429, "too-many-connections"));
        meter.afterConnectionClosed(ws, new CloseStatus(4429));
        verifyNoInteractions(handler);
        verify(metrics, never()).webSocketOpened();
        verify(metrics, never()).webSocketClosed();
    }

    @Test
    void anAcceptedSocketGivesItsTicketBackWhenItCloses() throws Exception {
        SocketsPerAddress p = new SocketsPerAddress(1);
        WebSocketHandler handler = mock(WebSocketHandler.class);
        WebSocketMeter meter = new WebSocketMeter(handler, mock(GatewayMetrics.class), p, events());
        InetAddress a = ip("198.18.0.2");
        WebSocketSession ws = mock(WebSocketSession.class);
        when(ws.getAttributes()).thenReturn(new HashMap<>(Map.of(SocketsPerAddress.TICKET_ATTR, p.tryOpen(a))));
        meter.afterConnectionEstablished(ws);
        verify(handler).afterConnectionEstablished(ws);
        assertNull(p.tryOpen(a), "at the limit while it is open");
        meter.afterConnectionClosed(ws, CloseStatus.NORMAL);
        assertNotNull(p.tryOpen(a), "free again after its close");
    }

    /** The real JSON sender (Jackson), as the gateway wires it. */
    private static WebSocketEvents events() {
        return new WebSocketEvents(mock(SessionStore.class), new com.fasterxml.jackson.databind.ObjectMapper());
    }
}

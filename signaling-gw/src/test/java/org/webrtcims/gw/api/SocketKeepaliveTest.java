package org.webrtcims.gw.api;

import org.junit.jupiter.api.Test;
import org.springframework.web.socket.CloseStatus;
import org.springframework.web.socket.PingMessage;
import org.springframework.web.socket.WebSocketSession;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.*;

/** Pings to open sockets; a socket silent (no message, no pong) past the idle timeout is closed and reported dead. */
class SocketKeepaliveTest {
    private final AtomicLong now = new AtomicLong();
    private final SocketKeepalive keepalive = new SocketKeepalive(100, 250, now::get, false);
    private final WebSocketSession ws = mock(WebSocketSession.class);
    private final List<CloseStatus> dead = new ArrayList<>();

    @Test
    void anAnsweringSocketIsPingedAndASilentOneClosed() throws Exception {
        when(ws.isOpen()).thenReturn(true);
        keepalive.onDead((s, status) -> dead.add(status));
        keepalive.opened(ws);
        now.set(100);
        keepalive.tick();
        verify(ws).sendMessage(any(PingMessage.class));
        now.set(200);
        keepalive.seen(ws); // its pong
        now.set(400);
        keepalive.tick();
        verify(ws, never()).close(any());
        assertTrue(dead.isEmpty());
        now.set(451);
        keepalive.tick();
        verify(ws).close(argThat((CloseStatus s) -> s.getCode() == CloseStatus.SESSION_NOT_RELIABLE.getCode()));
        assertEquals(1, dead.size());
        keepalive.tick(); // forgotten: closed once
        verify(ws, times(1)).close(any());
    }

    @Test
    void aClosedSocketIsForgottenAndAnIdleTimeoutNotAbovePingIsRefused() {
        keepalive.opened(ws);
        keepalive.closed(ws);
        now.set(10_000);
        keepalive.tick();
        verifyNoInteractions(ws);
        assertThrows(IllegalArgumentException.class, () -> new SocketKeepalive(100, 100, now::get, false));
    }
}

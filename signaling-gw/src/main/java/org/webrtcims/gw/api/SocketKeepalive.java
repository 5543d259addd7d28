package org.webrtcims.gw.api;

import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.socket.CloseStatus;
import org.springframework.web.socket.PingMessage;
import org.springframework.web.socket.WebSocketSession;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;

/**
 * WebSocket liveness (issue #12): every `lab.api.ws-ping-ms` each open browser socket gets a ping frame (browsers
 * answer with a pong on their own); a socket from which nothing (no message, no pong) came for
 * `lab.api.ws-idle-timeout-ms` is taken for half-open and closed, which ends its session like any lost socket
 * (after the reconnect grace period). Also runs the grace period's timers.
 */
public class SocketKeepalive {
    private static final Logger log = LoggerFactory.getLogger(SocketKeepalive.class);
    private static final ByteBuffer PING = ByteBuffer.wrap(new byte[] {'l', 'a', 'b'});

    private final long pingMs;
    private final long idleMs;
    private final LongSupplier clock;
    private final Map<WebSocketSession, Long> lastSeen = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "ws-keepalive");
        t.setDaemon(true);
        return t;
    });
    private volatile BiConsumer<WebSocketSession, CloseStatus> onDead = (ws, status) -> { };

    /** pingMs 0 = no pings and no idle check (idleMs is then ignored). */
    public SocketKeepalive(long pingMs, long idleMs) {
        this(pingMs, idleMs, System::currentTimeMillis, true);
    }

    SocketKeepalive(long pingMs, long idleMs, LongSupplier clock, boolean schedule) {
        if (pingMs > 0 && idleMs > 0 && idleMs <= pingMs) {
            throw new IllegalArgumentException("lab.api.ws-idle-timeout-ms (" + idleMs + ") must be longer than lab.api.ws-ping-ms (" + pingMs + ")");
        }
        this.pingMs = pingMs;
        this.idleMs = idleMs;
        this.clock = clock;
        if (schedule && pingMs > 0) timer.scheduleWithFixedDelay(this::tick, pingMs, pingMs, TimeUnit.MILLISECONDS);
    }

    /** What happens to a socket found dead (the handler ends its session as for any closed socket). */
    void onDead(BiConsumer<WebSocketSession, CloseStatus> handler) { this.onDead = handler; }

    void opened(WebSocketSession ws) { lastSeen.put(ws, clock.getAsLong()); }

    /** A message or a pong came in on the socket. */
    void seen(WebSocketSession ws) { lastSeen.replace(ws, clock.getAsLong()); } // only a socket still open; no lambda at a message

    void closed(WebSocketSession ws) { lastSeen.remove(ws); }

    /** Runs task after ms on the keepalive thread (the reconnect grace period). */
    void after(long ms, Runnable task) { timer.schedule(task, ms, TimeUnit.MILLISECONDS); }

    /** One round: pings, and sockets silent for longer than the idle timeout closed. */
    void tick() {
        long now = clock.getAsLong();
        for (Map.Entry<WebSocketSession, Long> e : lastSeen.entrySet()) {
            WebSocketSession ws = e.getKey();
            if (!ws.isOpen()) {
                lastSeen.remove(ws);
                continue;
            }
            if (idleMs > 0 && now - e.getValue() > idleMs) {
                lastSeen.remove(ws);
                CloseStatus status = CloseStatus.SESSION_NOT_RELIABLE.withReason("no pong for " + idleMs + " ms");
                log.info("WebSocket {}: nothing received for {} ms, closing it", ws.getId(), now - e.getValue());
                try {
                    synchronized (ws) {
                        ws.close(status);
                    }
                } catch (Exception ex) {
                    log.debug("closing {} failed: {}", ws.getId(), ex.toString());
                }
                onDead.accept(ws, status); // a half-open socket may never report its close
                continue;
            }
            try {
                synchronized (ws) { // WebSocketEvents writes under the same lock
                    if (ws.isOpen()) ws.sendMessage(new PingMessage(PING.duplicate()));
                }
            } catch (Exception ex) {
                log.debug("ping to {} failed: {}", ws.getId(), ex.toString());
            }
        }
    }

    @PreDestroy
    void stop() { timer.shutdownNow(); }
}

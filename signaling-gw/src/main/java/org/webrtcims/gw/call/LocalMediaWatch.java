package org.webrtcims.gw.call;

import org.springframework.stereotype.Component;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.media.MediaStats;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Decides when the gateway's local QoS segment is met: the browser leg carries media, i.e. ICE and
 * DTLS are done and rtpengine has received SRTP from the browser (it counts media, not STUN/DTLS).
 */
@Component
public class LocalMediaWatch {
    private static final long POLL_MS = 100;
    /** A few packets, so one stray datagram does not count as a working leg. */
    private static final long PACKETS_UP = 3;

    private final CallMedia media;
    private final CallTimers timers;
    private final long timeoutMs;

    public LocalMediaWatch(CallMedia media, CallTimers timers, GatewayProperties props) {
        this.media = media;
        this.timers = timers;
        this.timeoutMs = props.getIms().getQosTimeoutMs();
    }

    /** Calls {@code onUp} once the browser leg is up, or {@code onTimeout}; neither after the call ended. */
    void start(Call c, Runnable onUp, Runnable onTimeout) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        AtomicReference<ScheduledFuture<?>> self = new AtomicReference<>();
        self.set(timers.every(POLL_MS, () -> {
            if (c.ended()) {
                self.get().cancel(false);
                return;
            }
            MediaStats s = media.stats(c);
            if (s != null && s.packetsToIms() >= PACKETS_UP) {
                self.get().cancel(false);
                onUp.run();
            } else if (System.nanoTime() > deadline) {
                self.get().cancel(false);
                onTimeout.run();
            }
        }));
    }
}

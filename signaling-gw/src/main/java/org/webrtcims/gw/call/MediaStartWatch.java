package org.webrtcims.gw.call;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.media.MediaStats;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A connected call whose browser media never starts (ICE or DTLS never completes: no usable address,
 * a NAT that drops the checks) must not stay up silently: from the moment the call is confirmed,
 * rtpengine's counters are polled until the browser leg has carried a few packets toward IMS; if that
 * does not happen within {@code lab.rtpengine.media-start-timeout-ms}, the gateway hangs up (BYE) and
 * the browser gets {@code ended} with reason {@code media-timeout} (docs/media.md). 0 = off.
 */
@Component
public class MediaStartWatch {
    private static final Logger log = LoggerFactory.getLogger(MediaStartWatch.class);
    static final String REASON = "media-timeout";
    private static final long POLL_MS = 500;
    /** A few packets, so one stray datagram does not count as media. */
    private static final long PACKETS_UP = 3;

    private final CallMedia media;
    private final CallTeardown teardown;
    private final CallTimers timers;
    private final GatewayProperties props;

    public MediaStartWatch(CallMedia media, CallTeardown teardown, CallTimers timers, GatewayProperties props) {
        this.media = media;
        this.teardown = teardown;
        this.timers = timers;
        this.props = props;
    }

    /** Starts watching a call that has just been confirmed. */
    void start(Call c) {
        long timeoutMs = props.getRtpengine().getMediaStartTimeoutMs();
        if (timeoutMs <= 0) return;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        AtomicReference<ScheduledFuture<?>> self = new AtomicReference<>();
        self.set(timers.every(POLL_MS, () -> {
            if (check(c, deadline)) {
                ScheduledFuture<?> f = self.get();
                if (f != null) f.cancel(false);
            }
        }));
    }

    /** One poll; true when the watch is over (call ended, media up, or hung up for the timeout). */
    boolean check(Call c, long deadlineNanos) {
        if (c.ended()) return true;
        MediaStats s = media.stats(c);
        if (s != null && s.packetsToIms() >= PACKETS_UP) return true;
        if (System.nanoTime() < deadlineNanos) return false;
        log.info("call {}: no media from the browser within the media start timeout; hanging up ({})", c.id, REASON);
        teardown.hangUp(c, REASON);
        return true;
    }
}

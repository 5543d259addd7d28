package org.webrtcims.gw.media;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Circuit breaker in front of rtpengine (issue #12): an ng command that gets no reply after all its
 * retransmissions opens it; while open, commands fail at once with {@link NgException.Kind#UNAVAILABLE}
 * instead of each waiting out timeout × attempts (on the SIP thread that would stall every other call's
 * signalling). While open, its own thread pings rtpengine every {@code probeEvery}; the first pong (or any
 * reply to a command) closes it again.
 */
public final class RtpEngineBreaker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RtpEngineBreaker.class);

    private final String where;
    private final Duration probeEvery;
    private final ScheduledExecutorService prober;
    private BooleanSupplier ping = () -> false;
    private volatile Instant openSince;
    /** How often it closed again after being open: the relay answered again (after a restart, say). */
    private final java.util.concurrent.atomic.AtomicLong recoveries = new java.util.concurrent.atomic.AtomicLong();
    private ScheduledFuture<?> probe;

    public RtpEngineBreaker(String where, Duration probeEvery) {
        if (probeEvery.isNegative() || probeEvery.isZero()) throw new IllegalArgumentException("probe interval must be > 0");
        this.where = where;
        this.probeEvery = probeEvery;
        this.prober = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rtpengine-probe");
            t.setDaemon(true);
            return t;
        });
    }

    /** The ping the probe sends (true = pong); set once by the client that owns this breaker. */
    void probeWith(BooleanSupplier ping) { this.ping = ping; }

    /** Throws UNAVAILABLE while open. */
    void check(Object command) throws NgException {
        Instant since = openSince;
        if (since != null) {
            throw new NgException(NgException.Kind.UNAVAILABLE, "rtpengine " + where + " is not answering (no reply since "
                    + since + "); '" + command + "' not sent, new calls are refused until it answers a ping");
        }
    }

    /** The outcome of one command that was sent: a reply closes the breaker, no reply opens it. */
    void record(NgException failure) {
        if (failure == null || failure.kind() == NgException.Kind.ERROR_RESULT) {
            close(true);
        } else if (failure.kind() == NgException.Kind.TIMEOUT) {
            open();
        }
    }

    public boolean isOpen() { return openSince != null; }

    /** How often rtpengine answered again after the breaker had opened. */
    public long recoveries() { return recoveries.get(); }

    private synchronized void open() {
        if (openSince != null) return;
        openSince = Instant.now();
        log.warn("rtpengine {} does not answer: failing ng commands fast, pinging every {} ms", where, probeEvery.toMillis());
        probe = prober.scheduleWithFixedDelay(this::probeOnce, probeEvery.toMillis(), probeEvery.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void probeOnce() {
        if (ping.getAsBoolean()) close(true);
    }

    private synchronized void close(boolean answered) {
        if (openSince == null) return;
        log.info("rtpengine {} answers again (down since {})", where, openSince);
        openSince = null;
        recoveries.incrementAndGet();
        if (probe != null) probe.cancel(false);
        probe = null;
    }

    @Override
    public void close() { prober.shutdownNow(); }
}

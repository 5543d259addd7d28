package org.webrtcims.gw.call;

import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.springframework.beans.factory.annotation.Autowired;
import org.webrtcims.gw.config.GatewayProperties;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.media.DataChannelLegs;
import org.webrtcims.gw.media.DataChannelStats;
import org.webrtcims.gw.media.MediaStats;
import org.webrtcims.gw.media.NgException;
import org.webrtcims.gw.media.RtpEngineClient;

/**
 * The call layer's relays: it makes each call's {@link MediaLeg} (which then sends its own commands); here the release
 * of ended calls (query + delete off the SIP thread) and what the reconciler and the health page ask of the relay set.
 */
@Component
public class CallMedia {
    private static final Logger log = LoggerFactory.getLogger(CallMedia.class);

    private final RtpEngineClient rtp;
    /** The data-channel endpoint's sessions: each call's media leg hands it its data-channel section (sdp/DataChannelSdp). */
    private final DataChannelLegs dc;
    private final long releaseWaitMs;
    /**
     * Teardown's query + delete run here, never on the SIP or timer thread: with rtpengine gone silent each
     * would wait out timeout × attempts (issue #12). One thread: deletes need no order, only not to block.
     */
    private final ExecutorService releases = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "rtpengine-release");
        t.setDaemon(true);
        return t;
    });

    public CallMedia(RtpEngineClient rtp) { this(rtp, DataChannelLegs.off(), 4000); }

    @Autowired
    public CallMedia(RtpEngineClient rtp, DataChannelLegs dc, GatewayProperties props) { this(rtp, dc, props.getRtpengine().getReleaseWaitMs()); }

    CallMedia(RtpEngineClient rtp, long releaseWaitMs) { this(rtp, DataChannelLegs.off(), releaseWaitMs); }

    CallMedia(RtpEngineClient rtp, DataChannelLegs dc, long releaseWaitMs) {
        this.rtp = rtp;
        this.dc = dc;
        this.releaseWaitMs = releaseWaitMs;
    }

    /**
     * A new call's media leg, sending to the relay set and to the call's door to the data-channel endpoint; the call
     * layer then does each SDP exchange on the call's own leg (Call#media).
     */
    MediaLeg newLeg(String callId, Direction direction, String fromTag, Dialog dialog, Object lock) {
        return new MediaLeg(callId, direction, fromTag, dialog, lock, rtp, dc.forCall(callId));
    }

    /** This gateway's sessions in rtpengine now (gateway call-ids). */
    java.util.List<String> sessions() throws NgException { return rtp.list(); }

    /** Deletes a session that belongs to no call of this gateway (the reconciler's orphans). */
    void deleteOrphan(String callId) throws NgException { rtp.delete(callId, null); }

    /** Notes relays that restarted since the last call (their uptime went down), for relayRecoveries. */
    void noteRelayRestarts() { rtp.relays().noteRestarts(); }

    /** How often the relay holding the call answered again after being down (RtpEngineRelays#recoveriesOf). */
    long relayRecoveries(Call c) { return rtp.relays().recoveriesOf(c.id); }

    /** True while rtpengine is taken for down (its breaker is open): ng commands fail at once. */
    boolean unavailable() { return rtp.relays().unavailable(); }

    /** Live counters, or null when rtpengine cannot tell. */
    MediaStats stats(Call c) { return c.media().query(); }

    /** The call's data-channel counters (live, or the last ones once it ended); null when it has no data channels. */
    DataChannelStats dataChannelStats(Call c) { return dc.stats(c.id); }

    /**
     * Takes the last counters, then deletes the rtpengine call, on the release thread: returns at once and never
     * throws (teardown must finish). Caller holds the call's lock; the leg's final counters are set under it when
     * done. A delete that fails (rtpengine down) leaves the session to the reconciler.
     */
    void release(Call c) {
        MediaLeg leg = c.media();
        leg.releasing(CompletableFuture.runAsync(() -> {
            leg.delete();
            dc.release(c.id);
        }, releases));
    }

    /** Waits (up to lab.rtpengine.release-wait-ms) for an ended call's rtpengine delete; not on the SIP thread. */
    void awaitRelease(Call c) {
        CompletableFuture<Void> f;
        synchronized (c) {
            f = c.media().released();
        }
        if (f == null) return;
        try {
            f.get(releaseWaitMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            log.debug("release of {} still running", c.id);
        } catch (ExecutionException e) {
            log.warn("release of {} failed: {}", c.id, e.getCause().toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Lets queued deletes go out before the gateway stops (bounded by the ng deadlines and the breaker). */
    @PreDestroy
    void stop() {
        releases.shutdown();
        try {
            if (!releases.awaitTermination(releaseWaitMs, TimeUnit.MILLISECONDS)) releases.shutdownNow();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            releases.shutdownNow();
        }
    }
}

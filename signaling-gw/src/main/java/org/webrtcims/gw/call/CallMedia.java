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
import org.webrtcims.gw.media.MediaStats;
import org.webrtcims.gw.media.NgException;
import org.webrtcims.gw.media.RtpEngineClient;
import org.webrtcims.gw.sdp.DtlsRole;
import org.webrtcims.gw.sdp.DtlsSetupDefaults;
import org.webrtcims.gw.sdp.Bundle;
import org.webrtcims.gw.sdp.ImsSdpFilter;
import org.webrtcims.gw.sdp.UsableAddress;

/** The call layer's use of rtpengine: each SDP crossing the gateway goes through here. */
@Component
public class CallMedia {
    private static final Logger log = LoggerFactory.getLogger(CallMedia.class);

    private final RtpEngineClient rtp;
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

    public CallMedia(RtpEngineClient rtp) { this(rtp, 4000); }

    @Autowired
    public CallMedia(RtpEngineClient rtp, GatewayProperties props) { this(rtp, props.getRtpengine().getReleaseWaitMs()); }

    CallMedia(RtpEngineClient rtp, long releaseWaitMs) {
        this.rtp = rtp;
        this.releaseWaitMs = releaseWaitMs;
    }

    @FunctionalInterface
    private interface NgCall { String run() throws NgException; }

    private static String ng(String what, NgCall call) {
        try {
            return call.run();
        } catch (NgException e) {
            throw new CallFailure("media-failed", "rtpengine " + what + " failed: " + e.getMessage());
        }
    }

    // Every SDP that goes to the IMS side loses what rtpengine leaves of the browser's WebRTC lines.
    // Toward the browser rtpengine 10.5 writes no BUNDLE group; a one-m-line group is added (sdp/Bundle).
    // Each method records what the call needs for later re-offers (CallSdp.imsRemoteSdp, imsMediaSdp, dtlsRole).

    /** A browser SDP that leaves rtpengine no way to reach the browser is refused (sdp/UsableAddress). */
    private static void requireUsableAddress(String browserSdp) {
        String problem = UsableAddress.problem(browserSdp);
        if (problem != null) throw new CallFailure("no-usable-address", "browser SDP refused: " + problem);
    }

    /** The browser's offer (MO, or MT after an offerless INVITE): the SDP to offer toward IMS. */
    String offerFromBrowser(Call c, String browserSdp) {
        requireUsableAddress(browserSdp);
        String sdp = DtlsSetupDefaults.explicit(browserSdp, true);
        c.sdp.browserOffer = sdp;
        c.sdp.dtlsRole = DtlsRole.answering(sdp);
        c.sdp.imsMediaSdp = ImsSdpFilter.toIms(ng("offer", () -> rtp.offerFromBrowser(c.id, c.browserTag(), null, sdp, c.sdp.imsCodec, c.sdp.injectDtmf)));
        c.rtpengineSinceNanos = System.nanoTime();
        return c.sdp.imsMediaSdp;
    }

    /** The IMS answer to the browser's offer (MO: in a 18x/2xx; MT offerless: in the ACK): the browser's answer. */
    String answerFromIms(Call c, String sdp) {
        String out = Bundle.answerKeepingSingleGroup(c.sdp.browserOffer,
                ng("answer", () -> rtp.answerFromIms(c.id, c.browserTag(), c.imsTag(), sdp, c.sdp.dtlsRole, c.sdp.injectDtmf)));
        c.sdp.imsRemoteSdp = sdp;
        return out;
    }

    /** MT: an IMS offer without Opus is transcoded anyway, so such a call also takes WebSocket `dtmf`. */
    String offerFromIms(Call c, String sdp) {
        c.sdp.injectDtmf |= RtpEngineClient.mtOfferTranscodes(sdp);
        c.sdp.mtOffer = ng("offer", () -> rtp.offerFromIms(c.id, c.fromTag, null, sdp, c.sdp.injectDtmf));
        c.rtpengineSinceNanos = System.nanoTime();
        c.sdp.imsRemoteSdp = sdp;
        return Bundle.offerWithSingleGroup(c.sdp.mtOffer);
    }

    /**
     * MT, before the browser's answer: `answer {dtmf: "inject"}` on a relayed call. rtpengine marks the browser's
     * stream for injection from the offer (NgFlags.INJECT_DTMF in media/), so the IMS offer is sent again with the
     * flag; the browser already has the first offer, so rtpengine must give the same SDP back.
     */
    void injectDtmfBeforeAnswer(Call c) {
        if (c.sdp.injectDtmf) return;
        String again = ng("offer", () -> rtp.offerFromIms(c.id, c.fromTag, null, c.sdp.imsRemoteSdp, true));
        if (!again.equals(c.sdp.mtOffer)) {
            throw new CallFailure("media-failed", "rtpengine changed its offer when asked for DTMF injection;"
                    + " answer without dtmf \"inject\" and use the browser's RTCDTMFSender", c.id);
        }
        c.sdp.injectDtmf = true;
    }

    String answerFromBrowser(Call c, String browserSdp) {
        requireUsableAddress(browserSdp);
        String sdp = DtlsSetupDefaults.explicit(browserSdp, false);
        String out = ImsSdpFilter.toIms(ng("answer", () -> rtp.answerFromBrowser(c.id, c.fromTag, c.toTag, sdp)));
        c.sdp.dtlsRole = DtlsRole.oppositeOf(sdp);
        return c.sdp.imsMediaSdp = out;
    }

    /** A browser re-offer in an established call: the SDP to offer toward IMS. */
    String reofferFromBrowser(Call c, String browserSdp) {
        requireUsableAddress(browserSdp);
        String sdp = DtlsSetupDefaults.explicit(browserSdp, true);
        c.sdp.browserOffer = sdp;
        return ImsSdpFilter.toIms(ng("offer", () -> rtp.offerFromBrowser(c.id, c.browserTag(), c.imsTag(), sdp, c.sdp.imsCodec, c.sdp.injectDtmf)));
    }

    /** The IMS answer to a browser re-offer (or, with no SIP exchange, the IMS party's last SDP again). */
    String reanswerFromIms(Call c, String sdp) {
        String out = Bundle.answerKeepingSingleGroup(c.sdp.browserOffer,
                ng("answer", () -> rtp.answerFromIms(c.id, c.browserTag(), c.imsTag(), sdp, c.sdp.dtlsRole, c.sdp.injectDtmf)));
        c.sdp.imsRemoteSdp = sdp;
        return out;
    }

    /** An IMS re-offer: the SDP to offer the browser. */
    String reofferFromIms(Call c, String sdp) {
        String out = Bundle.offerWithSingleGroup(ng("offer", () -> rtp.offerFromIms(c.id, c.imsTag(), c.browserTag(), sdp, c.sdp.injectDtmf)));
        c.sdp.imsRemoteSdp = sdp;
        return out;
    }

    /** The browser's answer to an IMS re-offer: the SDP answer toward IMS. */
    String reanswerFromBrowser(Call c, String browserSdp) {
        requireUsableAddress(browserSdp);
        String sdp = DtlsSetupDefaults.explicit(browserSdp, false);
        return c.sdp.imsMediaSdp = ImsSdpFilter.toIms(ng("answer", () -> rtp.answerFromBrowser(c.id, c.imsTag(), c.browserTag(), sdp)));
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
    MediaStats stats(Call c) {
        return statsOf(c.id, c.browserTag());
    }

    /**
     * Takes the last counters, then deletes the rtpengine call, on the release thread: returns at once and never
     * throws (teardown must finish). Caller holds the call's lock; c.finalStats is set under it when done. A
     * delete that fails (rtpengine down) leaves the session to the reconciler.
     */
    void release(Call c) {
        String id = c.id;
        String tag = c.browserTag();
        c.released = CompletableFuture.runAsync(() -> {
            MediaStats last = statsOf(id, tag);
            MediaStats fin = null;
            try {
                fin = rtp.delete(id, tag);
            } catch (NgException e) {
                if (e.kind() != NgException.Kind.ERROR_RESULT) log.warn("rtpengine delete {} failed: {}", id, e.getMessage());
            }
            synchronized (c) {
                c.finalStats = best(fin, last);
            }
        }, releases);
    }

    /** Waits (up to lab.rtpengine.release-wait-ms) for an ended call's rtpengine delete; not on the SIP thread. */
    void awaitRelease(Call c) {
        CompletableFuture<Void> f;
        synchronized (c) {
            f = c.released;
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

    private MediaStats statsOf(String id, String tag) {
        try {
            return rtp.query(id, tag);
        } catch (NgException e) {
            log.debug("query {} failed: {}", id, e.getMessage());
            return null;
        }
    }

    private static MediaStats best(MediaStats a, MediaStats b) {
        if (a == null) return b;
        if (b == null) return a;
        return a.packetsToIms() + a.packetsToBrowser() >= b.packetsToIms() + b.packetsToBrowser() ? a : b;
    }
}

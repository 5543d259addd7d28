package org.webrtcims.gw.call;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.media.MediaStats;
import org.webrtcims.gw.media.NgException;
import org.webrtcims.gw.media.RtpEngineClient;
import org.webrtcims.gw.sdp.Bundle;
import org.webrtcims.gw.sdp.ImsSdpFilter;

/** The call layer's use of rtpengine: each SDP crossing the gateway goes through here. */
@Component
public class CallMedia {
    private static final Logger log = LoggerFactory.getLogger(CallMedia.class);

    private final RtpEngineClient rtp;

    public CallMedia(RtpEngineClient rtp) { this.rtp = rtp; }

    @FunctionalInterface
    private interface NgCall { String run() throws NgException; }

    private static String ng(String what, NgCall call) {
        try {
            return call.run();
        } catch (NgException e) {
            throw new CallFailure("media-failed", "rtpengine " + what + " failed: " + e.getMessage());
        }
    }

    // The two SDPs that go to the IMS side lose what rtpengine leaves of the browser's WebRTC lines.
    String offerFromBrowser(Call c, String sdp) {
        c.browserOffer = sdp;
        return ImsSdpFilter.toIms(ng("offer", () -> rtp.offerFromBrowser(c.id, c.fromTag, sdp, c.imsCodec)));
    }

    // Toward the browser: rtpengine 10.5 writes no BUNDLE group; a one-m-line group is added (sdp/Bundle).
    String answerFromIms(Call c, String sdp) {
        return Bundle.answerKeepingSingleGroup(c.browserOffer, ng("answer", () -> rtp.answerFromIms(c.id, c.fromTag, c.toTag, sdp)));
    }

    String offerFromIms(Call c, String sdp) {
        return Bundle.offerWithSingleGroup(ng("offer", () -> rtp.offerFromIms(c.id, c.fromTag, sdp)));
    }

    String answerFromBrowser(Call c, String sdp) {
        return ImsSdpFilter.toIms(ng("answer", () -> rtp.answerFromBrowser(c.id, c.fromTag, c.toTag, sdp)));
    }

    /** Live counters, or null when rtpengine cannot tell. */
    MediaStats stats(Call c) {
        try {
            return rtp.query(c.id, c.browserTag());
        } catch (NgException e) {
            log.debug("query {} failed: {}", c.id, e.getMessage());
            return null;
        }
    }

    /** Takes the last counters, then deletes the rtpengine call; never throws (teardown must finish). */
    void release(Call c) {
        MediaStats last = stats(c);
        try {
            MediaStats fin = rtp.delete(c.id, c.browserTag());
            c.finalStats = best(fin, last);
        } catch (NgException e) {
            c.finalStats = last;
            if (e.kind() != NgException.Kind.ERROR_RESULT) log.warn("rtpengine delete {} failed: {}", c.id, e.getMessage());
        }
    }

    private static MediaStats best(MediaStats a, MediaStats b) {
        if (a == null) return b;
        if (b == null) return a;
        return a.packetsToIms() + a.packetsToBrowser() >= b.packetsToIms() + b.packetsToBrowser() ? a : b;
    }
}

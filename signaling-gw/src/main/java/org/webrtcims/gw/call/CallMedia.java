package org.webrtcims.gw.call;

import org.slf4j.Logger;
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

    // Every SDP that goes to the IMS side loses what rtpengine leaves of the browser's WebRTC lines.
    // Toward the browser rtpengine 10.5 writes no BUNDLE group; a one-m-line group is added (sdp/Bundle).
    // Each method records what the call needs for later re-offers (CallSdp.imsRemoteSdp, imsMediaSdp, dtlsRole).

    /** A browser SDP that leaves rtpengine no way to reach the browser is refused (sdp/UsableAddress). */
    private static void requireUsableAddress(String browserSdp) {
        String problem = UsableAddress.problem(browserSdp);
        if (problem != null) throw new CallFailure("no-usable-address", "browser SDP refused: " + problem);
    }

    String offerFromBrowser(Call c, String browserSdp) {
        requireUsableAddress(browserSdp);
        String sdp = DtlsSetupDefaults.explicit(browserSdp, true);
        c.sdp.browserOffer = sdp;
        c.sdp.dtlsRole = DtlsRole.answering(sdp);
        return c.sdp.imsMediaSdp = ImsSdpFilter.toIms(ng("offer", () -> rtp.offerFromBrowser(c.id, c.fromTag, null, sdp, c.sdp.imsCodec, c.sdp.injectDtmf)));
    }

    String answerFromIms(Call c, String sdp) {
        String out = Bundle.answerKeepingSingleGroup(c.sdp.browserOffer,
                ng("answer", () -> rtp.answerFromIms(c.id, c.fromTag, c.toTag, sdp, c.sdp.dtlsRole, c.sdp.injectDtmf)));
        c.sdp.imsRemoteSdp = sdp;
        return out;
    }

    /** MT: an IMS offer without Opus is transcoded anyway, so such a call also takes WebSocket `dtmf`. */
    String offerFromIms(Call c, String sdp) {
        c.sdp.injectDtmf |= RtpEngineClient.mtOfferTranscodes(sdp);
        c.sdp.mtOffer = ng("offer", () -> rtp.offerFromIms(c.id, c.fromTag, null, sdp, c.sdp.injectDtmf));
        c.sdp.imsRemoteSdp = sdp;
        return Bundle.offerWithSingleGroup(c.sdp.mtOffer);
    }

    /**
     * MT, before the browser's answer: `answer {dtmf: "inject"}` on a relayed call. rtpengine marks the browser's
     * stream for injection from the offer (RtpEngineClient.INJECT_DTMF), so the IMS offer is sent again with the
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

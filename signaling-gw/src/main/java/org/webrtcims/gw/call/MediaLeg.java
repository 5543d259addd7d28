package org.webrtcims.gw.call;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.webrtcims.gw.media.ImsCodec;
import org.webrtcims.gw.media.MediaStats;
import org.webrtcims.gw.media.NgException;
import org.webrtcims.gw.media.RtpEngineClient;
import org.webrtcims.gw.media.DataChannelLegs;
import org.webrtcims.gw.sdp.BrowserSdp;
import org.webrtcims.gw.sdp.DataChannelSdp;
import org.webrtcims.gw.sdp.QosPreconditions;

import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The media side of one call: each SDP that crosses the gateway for it goes through here (offer, answer, re-offers
 * both ways), each in one step of sdp/BrowserSdp with rtpengine's command and the call's data-channel section
 * (sdp/DataChannelSdp, its endpoint media/DataChannelLegs) given to it; then query and delete. What later exchanges
 * need is kept here (the SDP per leg, the DTLS role, the codecs, DTMF injection). Guarded by the call's monitor (the
 * caller holds it), except the release's result.
 */
final class MediaLeg {
    private static final Logger log = LoggerFactory.getLogger(MediaLeg.class);
    /** The failure code (and the call's end reason) of a re-offer whose relay lost the call's session. */
    static final String MEDIA_LOST = "media-lost";
    private static final Pattern ORIGIN_VERSION = Pattern.compile("(?m)^o=\\S+ \\S+ (\\d+) ");

    private final String callId;
    private final Direction direction;
    /** The From tag of the call's INVITE: MO the browser's side, MT the IMS party's. */
    private final String fromTag;
    private final Dialog dialog;
    /** The call's monitor (the release sets the final counters under it). */
    private final Object lock;
    private final RtpEngineClient relay;
    /** The call's data-channel section (its endpoint: media/DataChannelLegs), handled in sdp/BrowserSdp's step. */
    private final DataChannelSdp dataChannels;

    /** The SDP the gateway last gave the IMS side, with precondition lines when in use (their base). */
    private String imsSdp;
    /** MO: the browser's SDP offer (its BUNDLE group shapes the answer). */
    private String browserOffer;
    /** The SDP the gateway gave the browser as rtpengine's answer (MO, MT offerless). */
    private String browserAnswer;
    /** The last SDP the IMS party sent (offer or answer): re-answers toward the browser reuse it. */
    private String imsRemoteSdp;
    /** The last media SDP the gateway sent toward IMS as rtpengine made it (filtered, no QoS lines). */
    private String imsMediaSdp;
    /** rtpengine's DTLS role toward the browser, kept across re-offers (RFC 5763 §5). */
    private String dtlsRole;
    /** The browser's first audio codec, as its SDP named it (before rtpengine's counters know). */
    private String codecBrowser;
    /** MO: the codec the browser asked to force on the IMS leg (rtpengine transcodes), null = pass-through. */
    private ImsCodec imsCodec;
    /**
     * The call takes WebSocket `dtmf` (rtpengine `play DTMF`, flag inject-DTMF on every offer/answer toward the
     * browser): asked for with `dtmf: "inject"`, or set because rtpengine transcodes the call anyway (imsCodec,
     * an MT offer without Opus). False = pure relaying; the browser's RTCDTMFSender carries DTMF.
     */
    private boolean injectDtmf;
    /** MT: rtpengine's offer toward the browser as it made it (before sdp/Bundle), to check a repeated offer. */
    private String mtOffer;
    /** System.nanoTime() when rtpengine first answered this call's offer (0 = not yet): MediaReconciler. */
    private volatile long rtpengineSinceNanos;
    /** The teardown's rtpengine delete, done off the SIP thread (CallMedia.release); null before teardown. */
    private CompletableFuture<Void> released;
    private MediaStats finalStats;

    /**
     * relay: the relay set the leg sends its ng commands to (null: a leg that sends nothing); endpoint: the call's door
     * to the data-channel endpoint (null: none, data-channel sections are rejected). Made by {@link CallMedia#newLeg}.
     */
    MediaLeg(String callId, Direction direction, String fromTag, Dialog dialog, Object lock, RtpEngineClient relay,
             DataChannelSdp.Endpoint endpoint) {
        this.callId = callId;
        this.direction = direction;
        this.fromTag = fromTag;
        this.dialog = dialog;
        this.lock = lock;
        this.relay = relay;
        this.dataChannels = new DataChannelSdp(endpoint == null ? DataChannelLegs.off().forCall(callId) : endpoint);
    }

    /** The rtpengine tag of the browser's side: it made the offer in MO and the answer in MT. */
    String browserTag() { return direction == Direction.MO ? fromTag : dialog.toTag(); }

    /** The rtpengine tag of the IMS party. */
    String imsTag() { return direction == Direction.MO ? dialog.toTag() : fromTag; }

    String imsSdp() { return imsSdp; }
    String browserAnswer() { return browserAnswer; }
    String imsRemoteSdp() { return imsRemoteSdp; }
    String imsMediaSdp() { return imsMediaSdp; }
    String codecBrowser() { return codecBrowser; }
    boolean injectDtmf() { return injectDtmf; }
    long rtpengineSinceNanos() { return rtpengineSinceNanos; }

    // ---- what the browser asked for ----

    /** The browser's choices for the call: the IMS codec to force (null: pass-through) and WebSocket DTMF. */
    void choose(ImsCodec imsCodec, boolean injectDtmf) {
        this.imsCodec = imsCodec;
        this.injectDtmf = injectDtmf || imsCodec != null;
    }

    /** MT offerless: whether the browser's offer asks for WebSocket DTMF. */
    void injectDtmf(boolean inject) { this.injectDtmf = inject; }

    /** The browser's first audio codec as its SDP names it (shown until rtpengine's counters know). */
    void browserCodec(String codec) { codecBrowser = codec; }

    /** As {@link #browserCodec}, unless it is known already. */
    void browserCodecIfUnknown(String codec) { if (codecBrowser == null) codecBrowser = codec; }

    // ---- the SDP toward IMS ----

    /** The SDP the gateway gives the IMS side now (with precondition lines when in use). */
    void sentToIms(String sdp) { imsSdp = sdp; }

    /** The SDP last given IMS with the status lines {@code qos}, o= one version on (RFC 3264 §8): what IMS has now. */
    String imsSdpWithQos(QosPreconditions.Status qos) {
        imsSdp = QosPreconditions.nextVersion(QosPreconditions.withStatus(imsSdp, qos));
        return imsSdp;
    }

    /** The browser's answer from an early or final IMS answer (MO) or the ACK's (MT offerless). */
    void browserAnswered(String sdp) { browserAnswer = sdp; }

    /** The re-offer toward IMS was answered: it is the gateway's current media SDP. */
    void reofferTaken(String imsOffer) { imsMediaSdp = imsOffer; }

    /** rtpengine took an SDP of the IMS party (offer or answer): later re-answers toward the browser reuse it. */
    void tookImsSdp(String sdp) { imsRemoteSdp = sdp; }

    /** rtpengine answered the call's first offer: from now on it must know the call (MediaReconciler). */
    void rtpengineAnswered() { rtpengineSinceNanos = System.nanoTime(); }

    /** The SDP the gateway last gave IMS: the precondition-carrying one or the last media SDP, the higher o= version. */
    String lastSdpToIms() {
        String a = imsSdp;
        String b = imsMediaSdp;
        if (a == null) return b;
        if (b == null) return a;
        return originVersion(b) > originVersion(a) ? b : a;
    }

    private static long originVersion(String sdp) {
        Matcher m = ORIGIN_VERSION.matcher(sdp);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    // ---- rtpengine ----

    @FunctionalInterface
    private interface NgCall { String run() throws NgException; }

    private static String ng(String what, NgCall call) {
        try {
            return call.run();
        } catch (NgException e) {
            throw ngFailed(what, e);
        }
    }

    /** An ng command that failed, as the browser hears it: `media-failed`. */
    private static CallFailure ngFailed(String what, NgException e) {
        return new CallFailure("media-failed", "rtpengine " + what + " failed: " + e.getMessage());
    }

    /**
     * The browser's offer (MO, or MT after an offerless INVITE): the SDP to offer toward IMS, made in one step by
     * sdp/BrowserSdp around rtpengine's offer (an MO call's first offer may not share a transport by BUNDLE), with
     * {@code qos}'s precondition status lines (null: none) and the call's data-channel section.
     */
    String bridgeBrowserOffer(String browserSdp, QosPreconditions.Status qos) {
        BrowserSdp.ToIms offer = refusedAsCallFailure(() -> BrowserSdp.offerToIms(browserSdp, direction == Direction.MO, qos,
                this::relayBrowserOffer, dataChannels));
        browserOffer = offer.browserSdp();
        dtlsRole = offer.dtlsRole();
        imsMediaSdp = offer.mediaSdp();
        browserCodecIfUnknown(offer.firstAudioCodec());
        rtpengineAnswered();
        return offer.imsSdp();
    }

    /** The relay's step of {@link #bridgeBrowserOffer}: rtpengine's ng offer of the browser's SDP, the IMS leg's SDP back. */
    private String relayBrowserOffer(String browserSdp) {
        try {
            return relay.offerFromBrowser(callId, browserTag(), null, browserSdp, imsCodec, injectDtmf);
        } catch (NgException e) {
            throw ngFailed("offer", e);
        }
    }

    /** sdp/BrowserSdp's refusals as the browser hears them: `bad-sdp`, `no-usable-address`. */
    private static BrowserSdp.ToIms refusedAsCallFailure(java.util.function.Supplier<BrowserSdp.ToIms> step) {
        try {
            return step.get();
        } catch (BrowserSdp.Refused r) {
            throw new CallFailure(r.kind() == BrowserSdp.Refused.Kind.UNREADABLE ? "bad-sdp" : "no-usable-address", r.getMessage());
        }
    }

    /** The IMS answer to the browser's offer (MO: in a 18x/2xx; MT offerless: in the ACK): the browser's answer. */
    String bridgeImsAnswer(String sdp) {
        return toBrowser(BrowserSdp.answerToBrowser(sdp, browserOffer,
                ims -> ng("answer", () -> relay.answerFromIms(callId, browserTag(), imsTag(), ims, dtlsRole, injectDtmf)), dataChannels));
    }

    /** MT: an IMS offer without Opus is transcoded anyway, so such a call also takes WebSocket `dtmf`. */
    String bridgeImsOffer(String sdp) {
        String out = toBrowser(BrowserSdp.offerToBrowser(sdp, ims -> {
            injectDtmf |= RtpEngineClient.mtOfferTranscodes(ims);
            return mtOffer = ng("offer", () -> relay.offerFromIms(callId, fromTag, null, ims, injectDtmf));
        }, dataChannels));
        rtpengineAnswered();
        return out;
    }

    /** The browser's SDP of an exchange from IMS; the IMS SDP rtpengine took is kept for re-answers. */
    private String toBrowser(BrowserSdp.ToBrowser out) {
        tookImsSdp(out.imsSdp());
        return out.browserSdp();
    }

    /**
     * MT, before the browser's answer: `answer {dtmf: "inject"}` on a relayed call. rtpengine marks the browser's
     * stream for injection from the offer (NgFlags.INJECT_DTMF in media/), so the IMS offer is sent again with the
     * flag; the browser already has the first offer, so rtpengine must give the same SDP back.
     */
    void injectDtmfBeforeAnswer() {
        if (injectDtmf) return;
        String again = ng("offer", () -> relay.offerFromIms(callId, fromTag, null, imsRemoteSdp, true));
        if (!again.equals(mtOffer)) {
            throw new CallFailure("media-failed", "rtpengine changed its offer when asked for DTMF injection;"
                    + " answer without dtmf \"inject\" and use the browser's RTCDTMFSender", callId);
        }
        injectDtmf = true;
    }

    /** MT: the browser's answer to the IMS offer: the SDP answer toward IMS. */
    String bridgeBrowserAnswer(String browserSdp) {
        BrowserSdp.ToIms answer = refusedAsCallFailure(() -> BrowserSdp.answerToIms(browserSdp,
                sdp -> ng("answer", () -> relay.answerFromBrowser(callId, fromTag, dialog.toTag(), sdp)), dataChannels));
        dtlsRole = answer.dtlsRole();
        imsMediaSdp = answer.mediaSdp();
        return answer.imsSdp();
    }

    /** A browser re-offer in an established call: the SDP to offer toward IMS (sdp/BrowserSdp, as the first). */
    String bridgeBrowserReoffer(String browserSdp) {
        relayStillHasSession();
        BrowserSdp.ToIms offer = refusedAsCallFailure(() -> BrowserSdp.offerToIms(browserSdp, false, null,
                sdp -> ng("offer", () -> relay.offerFromBrowser(callId, browserTag(), imsTag(), sdp, imsCodec, injectDtmf)), dataChannels));
        browserOffer = offer.browserSdp();
        return offer.imsSdp();
    }

    /** The IMS answer to a browser re-offer (or, with no SIP exchange, the IMS party's last SDP again). */
    String bridgeImsReanswer(String sdp) {
        return toBrowser(BrowserSdp.answerToBrowser(sdp, browserOffer,
                ims -> ng("answer", () -> relay.answerFromIms(callId, browserTag(), imsTag(), ims, dtlsRole, injectDtmf)), dataChannels));
    }

    /** An IMS re-offer (re-INVITE, UPDATE): the SDP to offer the browser; {@link #MEDIA_LOST} as the browser's re-offer. */
    String bridgeImsReoffer(String sdp) {
        relayStillHasSession();
        return toBrowser(BrowserSdp.offerToBrowser(sdp,
                ims -> ng("offer", () -> relay.offerFromIms(callId, imsTag(), browserTag(), ims, injectDtmf)), dataChannels));
    }

    /** The browser's answer to an IMS re-offer: the SDP answer toward IMS. */
    String bridgeBrowserReanswer(String browserSdp) {
        BrowserSdp.ToIms answer = refusedAsCallFailure(() -> BrowserSdp.answerToIms(browserSdp,
                sdp -> ng("answer", () -> relay.answerFromBrowser(callId, imsTag(), browserTag(), sdp)), dataChannels));
        imsMediaSdp = answer.mediaSdp();
        return answer.imsSdp();
    }

    /** The browser's digit toward the IMS party (rtpengine `play DTMF` from the browser's side). */
    void playDtmf(char digit, int durationMs) throws NgException {
        relay.playDtmf(callId, browserTag(), digit, durationMs);
    }

    /**
     * Before each re-offer's ng offer, either way: a relay that answers `query` with no session for the call restarted
     * without it, and an offer would make a new, empty session whose ports the other party never learns: the re-offer
     * fails {@link #MEDIA_LOST} (the caller ends the call). A relay that has it, or cannot tell, lets it go on.
     */
    private void relayStillHasSession() {
        try {
            relay.query(callId, browserTag());
        } catch (NgException e) {
            if (e.kind() == NgException.Kind.ERROR_RESULT
                    && String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT).contains("unknown call")) {
                throw new CallFailure(MEDIA_LOST, "call " + callId + " lost its media relay's session (the relay restarted):"
                        + " the call has ended", callId);
            }
        }
    }

    /** Live counters, or null when rtpengine cannot tell. */
    MediaStats query() {
        try {
            return relay.query(callId, browserTag());
        } catch (NgException e) {
            log.debug("query {} failed: {}", callId, e.getMessage());
            return null;
        }
    }

    /**
     * The last counters, then the delete of the rtpengine call: the better of the two is kept as the final counters.
     * Never throws (teardown must finish); a delete that fails (rtpengine down) leaves the session to the reconciler.
     * Runs off the call's lock (CallMedia's release thread).
     */
    void delete() {
        MediaStats last = query();
        MediaStats fin = null;
        try {
            fin = relay.delete(callId, browserTag());
        } catch (NgException e) {
            if (e.kind() != NgException.Kind.ERROR_RESULT) log.warn("rtpengine delete {} failed: {}", callId, e.getMessage());
        }
        MediaStats best = best(fin, last);
        synchronized (lock) {
            finalStats = best;
        }
    }

    /** The release (query + delete) under way since the teardown. */
    void releasing(CompletableFuture<Void> f) { released = f; }

    CompletableFuture<Void> released() { return released; }

    /** The counters rtpengine gave at the end (null before, or when it could not tell). */
    MediaStats finalStats() { return finalStats; }

    private static MediaStats best(MediaStats a, MediaStats b) {
        if (a == null) return b;
        if (b == null) return a;
        return a.packetsToIms() + a.packetsToBrowser() >= b.packetsToIms() + b.packetsToBrowser() ? a : b;
    }
}

package org.webrtcims.gw.call;

import org.webrtcims.gw.media.ImsCodec;

/** A call's SDP state, kept by {@link CallMedia} (and the precondition lines by {@link Preconditions}); guarded by the call's monitor. */
final class CallSdp {
    /** The SDP the gateway last gave the IMS side, with precondition lines when in use (their base). */
    String imsSdp;
    /** MO: the browser's SDP offer (its BUNDLE group shapes the answer). */
    String browserOffer;
    /** The SDP the gateway gave the browser as rtpengine's answer (MO). */
    String browserAnswer;
    /** The last SDP the IMS party sent (offer or answer): re-answers toward the browser reuse it. */
    String imsRemoteSdp;
    /** The last media SDP the gateway sent toward IMS as rtpengine made it (filtered, no QoS lines). */
    String imsMediaSdp;
    /** rtpengine's DTLS role toward the browser, kept across re-offers (RFC 5763 §5). */
    String dtlsRole;
    /** The browser's first audio codec, as its SDP named it (before rtpengine's counters know). */
    String codecBrowser;
    /** MO: the codec the browser asked to force on the IMS leg (rtpengine transcodes), null = pass-through. */
    ImsCodec imsCodec;
    /**
     * The call takes WebSocket `dtmf` (rtpengine `play DTMF`, flag inject-DTMF on every offer/answer toward the
     * browser): asked for with `dtmf: "inject"`, or set because rtpengine transcodes the call anyway (imsCodec,
     * an MT offer without Opus). False = pure relaying; the browser's RTCDTMFSender carries DTMF.
     */
    boolean injectDtmf;
    /** MT: rtpengine's offer toward the browser as it made it (before sdp/Bundle), to check a repeated offer. */
    String mtOffer;
}

package org.webrtcims.gw.media;

import org.webrtcims.gw.sdp.SdpCodec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The rtpengine ng `codec` dictionaries for transcoding (rtpengine 10.5.3.5 behaviour, checked against the
 * daemon; see docs/media.md). Without a forced codec nothing is added: the legs negotiate end to end. The browser-only
 * formats (rtx, red, ...) are not stripped here: sdp/BrowserOnlyFormats takes them out of the browser's offer before
 * rtpengine sees it, since an ng strip makes rtpengine 10.5 re-encode the browser's incoming audio at every re-offer.
 */
final class CodecPolicy {
    private CodecPolicy() {
    }

    /** MO offer without a forced codec: nothing (null), or the telephone-event below. */
    static Map<String, Object> moPassThrough(String browserSdp) {
        return moPassThrough(browserSdp, false);
    }

    /**
     * As {@link #moPassThrough(String)}; with injectDtmf (the call takes WebSocket `dtmf`) and a browser that
     * offers telephone-event only at another clock than its first audio codec's (Firefox: Opus/48000 beside
     * telephone-event/8000 only), `transcode: [telephone-event/48000]` also offers IMS telephone-event at the
     * codec's clock: rtpengine 10.5 injects RFC 4733 events only there (docs/media.md "DTMF"), and the call's
     * audio goes through its codec engine anyway with inject-DTMF.
     */
    static Map<String, Object> moPassThrough(String browserSdp, boolean injectDtmf) {
        String codecClockEvent = injectDtmf ? codecClockTelephoneEventMissing(browserSdp) : null;
        if (codecClockEvent == null) return null;
        Map<String, Object> dict = new LinkedHashMap<>();
        dict.put("transcode", List.of(codecClockEvent));
        return dict;
    }

    /**
     * "telephone-event/48000" when the SDP offers telephone-event, none of it at the clock of its first audio
     * codec (Opus/48000 here); null otherwise (none offered, or one at the codec's clock already).
     */
    static String codecClockTelephoneEventMissing(String sdp) {
        String codec = SdpCodec.firstAudioCodec(sdp);
        List<String> rates = SdpCodec.telephoneEventRates(sdp);
        if (codec == null || rates.isEmpty()) return null;
        String[] parts = codec.split("/");
        if (parts.length < 2 || rates.contains(parts[1])) return null;
        return "telephone-event/" + parts[1];
    }

    /**
     * MO offer with a forced IMS codec: the IMS side is offered only that codec (plus telephone-event when
     * the browser offered it), the browser keeps Opus.
     * - `strip: [X]` drops the browser's own X, so rtpengine cannot answer the browser with X (pass-through);
     * - `mask: [all]` hides the browser's codecs from IMS but keeps them (Opus) usable for transcoding;
     * - `transcode: [X spec]` adds X as a new transcoded codec toward IMS.
     * `mask: [all]` leaves video alone: rtpengine 10.5 masks only codecs it has a codec handler for (audio);
     * an offered VP8/H264 reaches IMS unchanged (checked: harness/tests/video.test.mjs).
     */
    static Map<String, Object> moForced(ImsCodec codec, String browserSdp) {
        List<String> transcode = new ArrayList<>(List.of(codec.transcodeSpec));
        if (SdpCodec.audioEncodings(browserSdp).contains("telephone-event")) {
            transcode.add("telephone-event");
        }
        Map<String, Object> dict = new LinkedHashMap<>();
        dict.put("strip", List.of(codec.wire));
        dict.put("mask", List.of("all"));
        dict.put("transcode", transcode);
        return dict;
    }

    /**
     * MT offer: when IMS offers no Opus, the browser is offered Opus first (transcoded) and then the IMS
     * codecs unchanged, so a browser that prefers Opus gets it and one that picks a G.711 codec still gets
     * pass-through. `mask: [all]` + re-listing the offered names keeps them in the offer's order behind
     * Opus (a bare `transcode: [opus]` would put Opus last). Null when IMS offers Opus (pass-through).
     */
    static Map<String, Object> mtOffer(String imsSdp) {
        List<String> offered = SdpCodec.audioEncodings(imsSdp);
        if (offered.isEmpty() || offered.stream().anyMatch(n -> n.equalsIgnoreCase("opus"))) {
            return null;
        }
        List<String> transcode = new ArrayList<>();
        transcode.add("opus");
        transcode.addAll(offered);
        Map<String, Object> dict = new LinkedHashMap<>();
        dict.put("mask", List.of("all"));
        dict.put("transcode", transcode);
        return dict;
    }
}

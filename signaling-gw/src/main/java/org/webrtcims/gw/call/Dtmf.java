package org.webrtcims.gw.call;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.media.DtmfLogEvent;
import org.webrtcims.gw.media.NgException;

import java.util.List;
import java.util.function.Consumer;
import org.webrtcims.gw.sdp.SdpCodec;

/**
 * DTMF both ways (docs/media.md "DTMF"), and the dialog extension that asks rtpengine for DTMF injection when the
 * browser answers an MT call with `dtmf: "inject"`; rtpengine carries it, media/ only speaks its protocols.
 * <ul>
 *   <li>browser → UE: the browser's RTCDTMFSender sends RFC 4733 events itself, relayed by rtpengine like its audio
 *       (nothing for the gateway to do). The browser's `dtmf` ({@link DtmfRequest}) becomes one rtpengine `play DTMF`
 *       per digit from the browser's side (RFC 4733 events, in-band tones when the UE did not negotiate
 *       telephone-event), on calls that take it ({@code CallSdp.injectDtmf}); on a relayed call it is
 *       `dtmf-unavailable` (rtpengine would answer ok and play nothing);</li>
 *   <li>UE → browser: each event rtpengine logged (media/DtmfLogListener) becomes one WebSocket
 *       `dtmf {callId, digit, durationMs, source: "ims"}` for the call's owner. The rtpengine call-id is the SIP
 *       Call-ID, i.e. the gateway's callId. Events whose source is the browser's own tag are left out: rtpengine
 *       logs what it injects for `play DTMF` and what the browser's RTCDTMFSender sends, too.</li>
 * </ul>
 */
@Component
public class Dtmf implements Consumer<DtmfLogEvent>, DialogExtension {
    private static final Logger log = LoggerFactory.getLogger(Dtmf.class);

    private final CallRegistry registry;
    private final CallEventSink sink;

    public Dtmf(CallRegistry registry, CallEventSink sink) {
        this.registry = registry;
        this.sink = sink;
    }

    /**
     * MT: the browser asked for WebSocket `dtmf` with its answer: rtpengine must mark the browser's stream before it
     * answers (MediaLeg#injectDtmfBeforeAnswer); after an offerless INVITE the browser's SDP is the offer, which
     * carries the flag itself.
     */
    @Override
    public void browserAnswering(Call c, boolean injectDtmf) {
        if (!injectDtmf) return;
        if (c.offerless()) c.media().injectDtmf(true);
        else c.media().injectDtmfBeforeAnswer();
    }

    /**
     * The browser's digits toward the IMS party, only once media flows both ways: answered, or early media from a
     * 183. rtpengine queues the digits; a refusal (e.g. no RTP seen from the browser yet) is a `dtmf-failed`
     * naming the digit.
     */
    void fromBrowser(Call c, DtmfRequest req) {
        synchronized (c) {
            CallState state = c.state();
            boolean mediaUp = state == CallState.CONFIRMED || (state == CallState.EARLY && c.media().browserAnswer() != null);
            if (!mediaUp) {
                throw new CallFailure("bad-state", "call " + c.id + " is " + state.wire()
                        + ": DTMF needs an answered call or early media", c.id);
            }
            if (!c.media().injectDtmf()) {
                throw new CallFailure("dtmf-unavailable", "call " + c.id + " is relayed without DTMF injection: send"
                        + " the digits with the browser's RTCDTMFSender (RFC 4733 telephone-event), or place/answer the"
                        + " call with dtmf: \"inject\" to use the WebSocket dtmf message", c.id);
            }
            String mismatch = telephoneEventClockMismatch(c.direction == Direction.MO ? c.media().imsRemoteSdp() : c.media().imsMediaSdp());
            if (mismatch != null) {
                throw new CallFailure("dtmf-unavailable", "call " + c.id + ": the IMS leg has " + mismatch + "; rtpengine"
                        + " 10.5 injects RFC 4733 events only at the audio codec's clock (RFC 4733 §2.1) and would play"
                        + " nothing: send the digits with the browser's RTCDTMFSender", c.id);
            }
        }
        for (char digit : req.digits().toCharArray()) {
            try {
                c.media().playDtmf(digit, req.durationMs());
            } catch (NgException e) {
                throw new CallFailure("dtmf-failed", "rtpengine did not play DTMF '" + digit + "': " + e.getMessage(), c.id);
            }
        }
    }

    /**
     * "telephone-event/8000 beside opus/48000" when the IMS leg's SDP has telephone-event, none of it at its audio
     * codec's clock; null when they match or there is no telephone-event (then rtpengine plays in-band tones).
     */
    static String telephoneEventClockMismatch(String imsSdp) {
        String codec = SdpCodec.firstAudioCodec(imsSdp);
        List<String> rates = SdpCodec.telephoneEventRates(imsSdp);
        if (codec == null || rates.isEmpty() || !codec.contains("/")) return null;
        String clock = codec.substring(codec.indexOf('/') + 1);
        return rates.contains(clock) ? null : "telephone-event/" + String.join(", ", rates) + " beside " + codec;
    }

    /** An event from rtpengine's DTMF log. */
    @Override
    public void accept(DtmfLogEvent ev) {
        Call c = registry.find(ev.callId()).orElse(null);
        if (c == null) {
            log.debug("DTMF event for a call this gateway does not know: {}", ev); // e.g. another gateway's
            return;
        }
        String digit = ev.digit().orElse(null);
        synchronized (c) {
            if (c.ended() || ev.sourceTag().equals(c.media().browserTag())) return;
            if (digit == null) {
                log.info("call {}: RFC 4733 event {} from IMS is not a DTMF key, not forwarded", c.id, ev.event());
                return;
            }
        }
        sink.toBrowser(c.owner, CallMessages.of("dtmf", c.id, "digit", digit, "durationMs", ev.durationMs(), "source", "ims"));
    }
}

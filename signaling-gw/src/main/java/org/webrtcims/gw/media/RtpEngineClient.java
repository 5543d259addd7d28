package org.webrtcims.gw.media;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.webrtcims.gw.sdp.SdpCodec;

/**
 * The gateway's only door to rtpengine: one method per ng command the call layer sends, each built by NgCommands
 * (the flags of docs/architecture.md, named once in NgFlags) and sent to the relay holding the call
 * (RtpEngineRelays: affinity, health, breakers); replies read here, counters by QueryStats. Tags: the from-tag is
 * the party that made the offer being handled, the to-tag the other one (null on a call's first offer).
 */
public class RtpEngineClient {
    private final RtpEngineRelays relays;
    private final NgCommands commands;
    private final RtpEngineLegs legs;
    private final NegotiatedCodecs negotiated = new NegotiatedCodecs();
    /** Calls whose first offer came from the browser (MO, offerless MT): their ICE mode (RtpEngineLegs.IceLite). */
    /** The calls the browser opened (its offer came first), each with whether rtpengine's answer leaves `a=ice-lite` out (RtpEngineLegs#hidesLiteInAnswer). */
    private final java.util.Map<String, Boolean> browserOpened = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * sessionPrefix: put before every call-id this client sends (and required of every id `list` returns), so
     * that the sessions of one gateway are told from another's, or from loadgen's, on a shared rtpengine.
     */
    public RtpEngineClient(RtpEngineRelays relays, RtpEngineLegs legs, String sessionPrefix) {
        this.commands = new NgCommands(legs, sessionPrefix);
        this.legs = legs;
        this.relays = Objects.requireNonNull(relays, "relays");
    }

    /** The relay set: affinity, health, restarts. */
    public RtpEngineRelays relays() { return relays; }

    public String sessionPrefix() { return commands.sessionPrefix(); }

    /** The gateway call-id of one of rtpengine's call-ids, or null when the session is not this gateway's. */
    public String callIdOf(String ngCallId) { return commands.callIdOf(ngCallId); }

    /** True when an MT offer from IMS makes rtpengine offer the browser transcoded Opus (no Opus from IMS). */
    public static boolean mtOfferTranscodes(String imsSdp) {
        return CodecPolicy.mtOffer(imsSdp) != null;
    }

    /**
     * An offer from the browser toward IMS, the SDP for IMS out; toTag non-null for a re-offer in an established
     * call (the browser's tag as from-tag, the IMS party's as to-tag, whoever made the first offer). imsCodec
     * non-null: the IMS side is offered only that codec and rtpengine transcodes Opus. injectDtmf: the call takes
     * WebSocket `dtmf` (rtpengine's `play DTMF`), so a pass-through offer also gets telephone-event at the audio
     * codec's clock toward IMS when the browser offered it only at another (CodecPolicy#moPassThrough: Firefox
     * offers Opus with telephone-event/8000 only).
     */
    public String offerFromBrowser(String callId, String fromTag, String toTag, String browserSdp, ImsCodec imsCodec,
                                   boolean injectDtmf) throws NgException {
        Map<String, Object> codec = imsCodec == null ? CodecPolicy.moPassThrough(browserSdp, injectDtmf)
                : CodecPolicy.moForced(imsCodec, browserSdp);
        if (toTag == null) browserOpened.put(callId, legs.hidesLiteInAnswer(browserSdp));
        String imsSdp = sdpOf(relays.send(callId, toTag == null,
                commands.offerFromBrowser(callId, fromTag, toTag, browserSdp, codec, browserOpened.containsKey(callId))));
        // rtpengine silently leaves out a codec it cannot encode (AMR/AMR-WB without libavcodec-extra).
        if (imsCodec != null && !SdpCodec.audioEncodings(imsSdp).contains(imsCodec.wire)) {
            if (toTag == null) delete(callId, null); // a failed re-offer must not end the call
            throw new NgException(NgException.Kind.ERROR_RESULT,
                    "rtpengine cannot transcode to " + imsCodec.wire + " (see docs/media.md)");
        }
        return imsSdp;
    }

    /**
     * The IMS answer to a browser offer, the browser's SDP answer out; dtlsRole is rtpengine's DTLS role toward the
     * browser (`active` for a first answer, lab-notes: passive failed 4/6; in a re-offer the role the association
     * already has, RFC 5763 §5, since the browser rejects an answer that flips it). injectDtmf: the call takes
     * `play DTMF` from the browser's tag (the browser made this offer, so the flag on the answer marks its stream).
     * Its `a=ice-lite` left out on a call the browser opened as lab.rtpengine.ice-lite-in-answers says (RtpEngineLegs#hidesLiteInAnswer).
     */
    public String answerFromIms(String callId, String fromTag, String toTag, String imsSdp, String dtlsRole,
                                boolean injectDtmf) throws NgException {
        String browserSdp = legs.answerToBrowser(sdpOf(relays.send(callId, false,
                commands.answerFromIms(callId, fromTag, toTag, imsSdp, dtlsRole, injectDtmf))),
                browserOpened.getOrDefault(callId, false));
        negotiated.remember(callId, browserSdp, imsSdp);
        return browserSdp;
    }

    /**
     * An offer from IMS toward the browser, the browser's SDP offer out; toTag (the browser's tag) non-null for a
     * re-offer. injectDtmf: the call takes `play DTMF` from the browser's tag (the browser answers this offer, so
     * the flag on the offer marks its stream). Sending the same offer again with the flag before the browser's
     * answer turns it on for a call already offered without (rtpengine 10.5 then gives the same SDP back: checked
     * in RtpEngineRealTest). An IMS offer without Opus is transcoded (CodecPolicy#mtOffer).
     */
    public String offerFromIms(String callId, String fromTag, String toTag, String imsSdp, boolean injectDtmf)
            throws NgException {
        return sdpOf(relays.send(callId, toTag == null,
                commands.offerFromIms(callId, fromTag, toTag, imsSdp, injectDtmf, CodecPolicy.mtOffer(imsSdp))));
    }

    /** The browser's JSEP answer to an IMS offer, the SDP answer toward IMS out. */
    public String answerFromBrowser(String callId, String fromTag, String toTag, String browserSdp)
            throws NgException {
        String imsSdp = sdpOf(relays.send(callId, false, commands.answerFromBrowser(callId, fromTag, toTag, browserSdp)));
        negotiated.remember(callId, browserSdp, imsSdp);
        return imsSdp;
    }

    /**
     * Injects one DTMF digit as if `fromTag` had sent it: toward the other party as an RFC 4733 event when it
     * negotiated telephone-event, else as an in-band tone in its audio (docs/media.md "DTMF"). Consecutive
     * calls queue up in rtpengine, each digit after the previous one plus the pause. Only on a call whose
     * offer/answer carried inject-DTMF: rtpengine 10.5 answers "ok" on any other and plays nothing (checked),
     * so the caller must know (call/Dtmf does).
     */
    public void playDtmf(String callId, String fromTag, char digit, int durationMs) throws NgException {
        relays.send(callId, false, commands.playDtmf(callId, fromTag, digit, durationMs));
    }

    /** Live counters; browserTag is the from-tag for MO calls and the to-tag for MT calls. */
    public MediaStats query(String callId, String browserTag) throws NgException {
        MediaStats stats = negotiated.statsOf(callId, relays.send(callId, false, commands.query(callId)), browserTag);
        if (stats == null) {
            throw new NgException(NgException.Kind.PROTOCOL, "rtpengine query reply without 'tags'");
        }
        return stats;
    }

    /**
     * Deletes the whole call at once (delete-delay 0) and returns the final counters when the reply carries them,
     * else null. rtpengine 10.5 only reports stats when the delete names a tag, and refuses a tag it never saw (MT
     * call the browser never answered); then a tag-less delete still removes the whole call. A call no relay holds
     * (with several relays: an earlier run's session, an orphan) is deleted on every relay.
     */
    public MediaStats delete(String callId, String browserTag) throws NgException {
        Objects.requireNonNull(callId, "callId");
        if (relays.all().size() > 1 && !relays.holds(callId)) {
            deleteEverywhere(callId);
            return null;
        }
        try {
            if (browserTag != null) {
                Map<String, Object> reply = relays.send(callId, false, commands.delete(callId, browserTag));
                if (reply.get("warning") == null) {
                    return negotiated.statsOf(callId, reply, browserTag);
                }
            }
            relays.send(callId, false, commands.delete(callId, null));
            return null;
        } finally {
            negotiated.forget(callId);
            browserOpened.remove(callId);
            relays.release(callId);
        }
    }

    /** A tag-less delete on every relay that answers; fails only when none had it and one could not be asked. */
    private void deleteEverywhere(String callId) throws NgException {
        NgException unreachable = null;
        boolean deleted = false;
        for (RtpEngineRelay r : relays.all()) {
            try {
                r.send(commands.delete(callId, null));
                deleted = true;
            } catch (NgException e) {
                if (e.kind() != NgException.Kind.ERROR_RESULT) unreachable = e; // "unknown call-id" is the usual answer
            }
        }
        negotiated.forget(callId);
        browserOpened.remove(callId);
        if (!deleted && unreachable != null) throw unreachable;
    }

    /**
     * Call-ids (the gateway's, without the session prefix) of this gateway's sessions rtpengine holds now: every
     * relay's, together; fails when one of them cannot be asked (a partial list would make its calls look lost).
     */
    public List<String> list() throws NgException {
        List<String> out = new ArrayList<>();
        for (RtpEngineRelay r : relays.all()) {
            Object calls = r.send(NgCommands.list()).get("calls");
            if (!(calls instanceof List<?> ids)) {
                throw new NgException(NgException.Kind.PROTOCOL, "rtpengine list reply without 'calls'");
            }
            for (Object id : ids) {
                String ours = commands.callIdOf(String.valueOf(id));
                if (ours != null) out.add(ours);
            }
        }
        return out;
    }

    private static String sdpOf(Map<String, Object> reply) throws NgException {
        if (reply.get(NgFlags.SDP) instanceof String sdp && !sdp.isEmpty()) {
            return sdp;
        }
        throw new NgException(NgException.Kind.PROTOCOL, "rtpengine reply without 'sdp'");
    }
}

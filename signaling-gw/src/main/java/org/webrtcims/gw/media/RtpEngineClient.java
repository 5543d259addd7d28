package org.webrtcims.gw.media;

import org.webrtcims.gw.sdp.SdpCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.webrtcims.gw.sdp.MdnsSdp;

/**
 * The gateway's only door to rtpengine. Each method is one ng command with the flags of
 * docs/architecture.md: the browser leg is UDP/TLS/RTP/SAVPF with ICE and rtcp-mux, the IMS leg
 * plain RTP/AVP without ICE, with RTCP demuxed and RTP header extensions stripped.
 * Option spellings are the ones rtpengine 10.5 was seen to honour.
 *
 * <p>Several rtpengine instances (docs/scale-out.md): a new call (its first offer) goes to the relay holding the
 * fewest of this gateway's calls among those whose breaker is closed (ties in turn), and every later command of
 * that call to the same relay (call affinity, kept here until the call's delete). One relay is the plain case.
 */
public class RtpEngineClient {
    /**
     * Per call, on the commands that carry the IMS party's SDP toward the browser (answerFromIms, offerFromIms):
     * rtpengine 10.5 then runs the browser's stream through its codec engine, and `play DTMF` from the browser's
     * tag works. Checked against the daemon: the flag on an offer marks the answerer's stream, on an answer the
     * offerer's; without it `play DTMF` answers "ok" and plays nothing. Its price: the browser's audio is decoded
     * and re-encoded, also when both legs use the same codec, so only calls that ask for it carry it.
     */
    static final String INJECT_DTMF = "inject-DTMF";
    /** RFC 4733 volume of injected events: -8 dBm0 (rtpengine 10.5 otherwise sends 63, i.e. -63 dBm0). */
    static final int DTMF_VOLUME = 8;
    /** Silence after each injected digit (rtpengine's own default and minimum). */
    static final int DTMF_PAUSE_MS = 100;

    /** The rtpengine instances, each with its own breaker (fails commands fast while it does not answer, issue #12). */
    private final List<RtpEngineRelay> relays;
    /** Call affinity: the relay that holds each call (gateway call-id), from its first offer to its delete. */
    private final Map<String, RtpEngineRelay> holder = new ConcurrentHashMap<>();
    private final AtomicInteger turn = new AtomicInteger();
    /** Before every call-id sent to rtpengine: this gateway's sessions (see the constructor). */
    private final String sessionPrefix;
    /** Codecs read from the SDP answers, used when rtpengine has not seen RTP yet. */
    private final Map<String, Negotiated> negotiated = new ConcurrentHashMap<>();

    private record Negotiated(String browser, String ims, String videoBrowser, String videoIms) {
    }

    /**
     * What replaces a browser's `c=IN IP4 0.0.0.0` when all its candidates are mDNS names (MdnsSdp):
     * TEST-NET-1 (RFC 5737), never routed. rtpengine only needs a non-zero address there to not take
     * the stream for held; it sends to what ICE finds, never to this one (the browser's signalling
     * address would be the better value once the call layer passes it).
     */
    static final String MDNS_PLACEHOLDER = "192.0.2.1";

    /** How the browser leg is set up: rtpengine interfaces per leg and its ICE role (issue #17). */
    private final Legs legs;

    /**
     * rtpengine's named interfaces (its `--interface=NAME/ADDR`) for the browser and the IMS leg, sent as
     * ng `direction` (null = one unnamed interface, no `direction` key); iceLite: rtpengine is ICE-lite
     * toward the browser (ng `ICE-lite`), so the browser is the controlling agent on MO and MT calls.
     */
    public record Legs(String browserInterface, String imsInterface, boolean iceLite) {
        public static final Legs DEFAULT = new Legs(null, null, false);

        public Legs {
            if ((browserInterface == null) != (imsInterface == null)) {
                throw new IllegalArgumentException("name both rtpengine interfaces (browser and IMS) or neither");
            }
        }

        boolean named() {
            return browserInterface != null;
        }
    }

    public RtpEngineClient(NgClient ng) {
        this(ng, Legs.DEFAULT);
    }

    /** True when an MT offer from IMS makes rtpengine offer the browser transcoded Opus (no Opus from IMS). */
    public static boolean mtOfferTranscodes(String imsSdp) {
        return CodecPolicy.mtOffer(imsSdp) != null;
    }

    public RtpEngineClient(NgClient ng, Legs legs) {
        this(ng, legs, new RtpEngineBreaker(String.valueOf(ng.server()), Duration.ofSeconds(1)));
    }

    public RtpEngineClient(NgClient ng, Legs legs, RtpEngineBreaker breaker) {
        this(ng, legs, breaker, "");
    }

    /**
     * sessionPrefix: put before every call-id this client sends (and required of every id `list` returns), so
     * that the sessions of one gateway are told from another's, or from loadgen's, on a shared rtpengine.
     */
    public RtpEngineClient(NgClient ng, Legs legs, RtpEngineBreaker breaker, String sessionPrefix) {
        this(List.of(new RtpEngineRelay(ng, breaker)), legs, sessionPrefix);
    }

    /** Several rtpengine instances (at least one), calls balanced across them with affinity (class comment). */
    public RtpEngineClient(List<RtpEngineRelay> relays, Legs legs, String sessionPrefix) {
        if (sessionPrefix == null || sessionPrefix.chars().anyMatch(ch -> ch <= ' ')) {
            throw new IllegalArgumentException("rtpengine session prefix must have no spaces: '" + sessionPrefix + "'");
        }
        if (relays == null || relays.isEmpty()) throw new IllegalArgumentException("at least one rtpengine is needed");
        this.sessionPrefix = sessionPrefix;
        this.relays = List.copyOf(relays);
        this.legs = Objects.requireNonNull(legs, "legs");
        for (RtpEngineRelay r : this.relays) r.breaker().probeWith(r::ping);
    }

    /** The relays, in the order configured. */
    public List<RtpEngineRelay> relays() { return relays; }

    /** The ng address ("host:port") of the relay holding a call, or null when none does (before its offer, after its delete). */
    public String relayOf(String callId) {
        RtpEngineRelay r = holder.get(callId);
        return r == null ? null : r.name();
    }

    /**
     * How often the relay holding a call answered again after being taken for down (its breaker's recoveries) or
     * restarted, since the call was placed on it; 0 when no relay holds it. A rise means the relay may have restarted under the call (docs/scale-out.md).
     */
    public long recoveriesOf(String callId) {
        RtpEngineRelay r = holder.get(callId);
        return r == null ? 0 : Math.max(0, recoveries(r) - recoveriesAtOffer.getOrDefault(callId, 0L));
    }

    /** The relay's recoveries and restarts so far. */
    private long recoveries(RtpEngineRelay r) {
        return r.breaker().recoveries() + restarts.getOrDefault(r, new long[2])[1];
    }

    /** Per call: its relay's recoveries when the call was placed on it (recoveriesOf counts from there). */
    private final Map<String, Long> recoveriesAtOffer = new ConcurrentHashMap<>();

    /** Per relay: {its uptime at the last check (s), restarts seen (its uptime went down)}. */
    private final Map<RtpEngineRelay, long[]> restarts = new ConcurrentHashMap<>();

    /**
     * Asks every relay for its `statistics` and notes a restart when its uptime went down since the last check: a
     * restart shorter than the ng timeout never opens the breaker, so {@link #recoveriesOf} counts these too.
     * Relays that do not answer are skipped (their breaker notes the outage).
     */
    public void noteRestarts() {
        for (RtpEngineRelay r : relays) {
            long uptime;
            try {
                Object stats = r.send(command("statistics")).get("statistics");
                Object total = stats instanceof Map<?, ?> m ? m.get("totalstatistics") : null;
                Object up = total instanceof Map<?, ?> t ? t.get("uptime") : null;
                if (up == null) continue;
                uptime = Long.parseLong(String.valueOf(up).trim());
            } catch (NgException | NumberFormatException e) {
                continue;
            }
            long[] seen = restarts.computeIfAbsent(r, k -> new long[] {uptime, 0});
            if (uptime < seen[0]) seen[1]++;
            seen[0] = uptime;
        }
    }

    /** This gateway's calls per relay (ng address → calls it holds now), in the configured order. */
    public Map<String, Integer> callsPerRelay() {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (RtpEngineRelay r : relays) out.put(r.name(), 0);
        holder.values().forEach(r -> out.merge(r.name(), 1, Integer::sum));
        return out;
    }

    /** rtpengine's call-id for a gateway call-id. */
    String ngId(String callId) { return sessionPrefix + Objects.requireNonNull(callId, "callId"); }

    /** The gateway call-id of one of rtpengine's call-ids, or null when the session is not this gateway's. */
    public String callIdOf(String ngCallId) {
        return ngCallId != null && ngCallId.startsWith(sessionPrefix) ? ngCallId.substring(sessionPrefix.length()) : null;
    }

    public String sessionPrefix() { return sessionPrefix; }

    /**
     * True while every rtpengine is taken for down: no new call can get media, commands fail at once
     * (RtpEngineBreaker). With several relays, one of them down is {@link #someUnavailable()}.
     */
    public boolean unavailable() { return relays.stream().allMatch(r -> r.breaker().isOpen()); }

    /** True while at least one relay is taken for down (its calls' commands fail at once). */
    public boolean someUnavailable() { return relays.stream().anyMatch(r -> r.breaker().isOpen()); }

    /**
     * One ng command of a call, to the relay that holds it; the first offer of a call (no to-tag, no holder yet)
     * picks one. With one relay it always goes there.
     */
    private Map<String, Object> send(Map<String, Object> cmd) throws NgException {
        String callId = callIdOf(String.valueOf(cmd.get("call-id")));
        RtpEngineRelay r = callId == null ? null : holder.get(callId);
        if (r == null) {
            boolean first = callId != null && "offer".equals(cmd.get("command")) && !cmd.containsKey("to-tag");
            if (relays.size() == 1) {
                r = relays.get(0);
            } else if (!first) {
                throw new NgException(NgException.Kind.PROTOCOL, "no rtpengine holds call " + callId + " ('"
                        + cmd.get("command") + "' before its offer)");
            } else {
                r = pick();
            }
            if (first) {
                RtpEngineRelay raced = holder.putIfAbsent(callId, r);
                if (raced != null) r = raced;
                else recoveriesAtOffer.put(callId, recoveries(r));
            }
        }
        return r.send(cmd);
    }

    /** The relay for a new call: the fewest of this gateway's calls among those answering, ties in turn. */
    private RtpEngineRelay pick() {
        Map<RtpEngineRelay, Integer> load = new java.util.HashMap<>();
        holder.values().forEach(r -> load.merge(r, 1, Integer::sum));
        int start = Math.floorMod(turn.getAndIncrement(), relays.size());
        RtpEngineRelay best = null;
        int bestLoad = Integer.MAX_VALUE;
        for (int i = 0; i < relays.size(); i++) {
            RtpEngineRelay r = relays.get((start + i) % relays.size());
            if (r.breaker().isOpen()) continue;
            int n = load.getOrDefault(r, 0);
            if (n < bestLoad) {
                best = r;
                bestLoad = n;
            }
        }
        return best != null ? best : relays.get(start); // all down: its breaker refuses at once
    }

    /** MO: the browser's JSEP offer in, the SDP for the INVITE toward IMS out (codecs passed through). */
    public String offerFromBrowser(String callId, String fromTag, String browserSdp) throws NgException {
        return offerFromBrowser(callId, fromTag, browserSdp, null);
    }

    /** MO; with imsCodec non-null the IMS side is offered only that codec and rtpengine transcodes Opus. */
    public String offerFromBrowser(String callId, String fromTag, String browserSdp, ImsCodec imsCodec)
            throws NgException {
        return offerFromBrowser(callId, fromTag, null, browserSdp, imsCodec);
    }

    /**
     * An offer from the browser toward IMS; toTag non-null for a re-offer in an established call
     * (the browser's tag as from-tag, the IMS party's as to-tag, whoever made the first offer).
     */
    public String offerFromBrowser(String callId, String fromTag, String toTag, String browserSdp, ImsCodec imsCodec)
            throws NgException {
        return offerFromBrowser(callId, fromTag, toTag, browserSdp, imsCodec, false);
    }

    /**
     * As above; injectDtmf: the call takes WebSocket `dtmf` (rtpengine's `play DTMF`), so a pass-through offer
     * also gets telephone-event at the audio codec's clock toward IMS when the browser offered it only at
     * another (CodecPolicy#moPassThrough: Firefox offers Opus with telephone-event/8000 only).
     */
    public String offerFromBrowser(String callId, String fromTag, String toTag, String browserSdp, ImsCodec imsCodec,
                                   boolean injectDtmf) throws NgException {
        Map<String, Object> cmd = sdpCommand("offer", callId, fromTag, toTag, MdnsSdp.forRtpengine(browserSdp, MDNS_PLACEHOLDER));
        towardIms(cmd);
        if (toTag != null) keepPorts(cmd);
        cmd.put("replace", List.of("origin", "session-connection"));
        fromBrowser(cmd, "backward");
        if (imsCodec == null) {
            Map<String, Object> codec = CodecPolicy.moPassThrough(browserSdp, injectDtmf);
            if (codec != null) cmd.put("codec", codec);
            return sdpOf(send(cmd));
        }
        cmd.put("codec", CodecPolicy.moForced(imsCodec, browserSdp));
        String imsSdp = sdpOf(send(cmd));
        // rtpengine silently leaves out a codec it cannot encode (AMR/AMR-WB without libavcodec-extra).
        if (!SdpCodec.audioEncodings(imsSdp).contains(imsCodec.wire)) {
            if (toTag == null) delete(callId, null); // a failed re-offer must not end the call
            throw new NgException(NgException.Kind.ERROR_RESULT,
                    "rtpengine cannot transcode to " + imsCodec.wire + " (see docs/media.md)");
        }
        return imsSdp;
    }

    /** MO: the IMS answer (183/200 SDP) in, the SDP answer for the browser out. */
    public String answerFromIms(String callId, String fromTag, String toTag, String imsSdp) throws NgException {
        // lab-notes: answering a browser offer, DTLS=passive failed 4/6 while active worked 6/6.
        return answerFromIms(callId, fromTag, toTag, imsSdp, "active", false);
    }

    /**
     * The IMS answer to a browser offer; dtlsRole is rtpengine's DTLS role toward the browser
     * (`active` for a first answer; in a re-offer the role the association already has, RFC 5763 §5,
     * since the browser rejects an answer that flips it). injectDtmf: the call takes `play DTMF` from the
     * browser's tag (the browser made this offer, so the flag on the answer marks its stream).
     */
    public String answerFromIms(String callId, String fromTag, String toTag, String imsSdp, String dtlsRole,
                                boolean injectDtmf) throws NgException {
        Map<String, Object> cmd = sdpCommand("answer", callId, fromTag, toTag, imsSdp);
        towardBrowser(cmd, injectDtmf);
        fromIms(cmd, null);
        cmd.put("DTLS", Objects.requireNonNull(dtlsRole, "dtlsRole"));
        String browserSdp = sdpOf(send(cmd));
        remember(callId, browserSdp, imsSdp);
        return browserSdp;
    }

    /** MT: the INVITE's SDP offer from IMS in, the SDP offer for the browser out. */
    public String offerFromIms(String callId, String fromTag, String imsSdp) throws NgException {
        return offerFromIms(callId, fromTag, null, imsSdp, false);
    }

    /**
     * An offer from IMS toward the browser; toTag (the browser's tag) non-null for a re-offer. injectDtmf: the
     * call takes `play DTMF` from the browser's tag (the browser answers this offer, so the flag on the offer
     * marks its stream). Sending the same offer again with the flag before the browser's answer turns it on for
     * a call already offered without (rtpengine 10.5 then gives the same SDP back: checked in RtpEngineRealTest).
     */
    public String offerFromIms(String callId, String fromTag, String toTag, String imsSdp, boolean injectDtmf)
            throws NgException {
        Map<String, Object> cmd = sdpCommand("offer", callId, fromTag, toTag, imsSdp);
        towardBrowser(cmd, injectDtmf);
        cmd.put("SDES", List.of("off"));
        cmd.put("flags", flags(injectDtmf, "generate-mid", "trust-address"));
        if (toTag != null) keepPorts(cmd);
        fromIms(cmd, "forward");
        Map<String, Object> codec = CodecPolicy.mtOffer(imsSdp);
        if (codec != null) {
            cmd.put("codec", codec);
        }
        return sdpOf(send(cmd));
    }

    /** MT: the browser's JSEP answer in, the SDP answer toward IMS out. */
    public String answerFromBrowser(String callId, String fromTag, String toTag, String browserSdp)
            throws NgException {
        Map<String, Object> cmd = sdpCommand("answer", callId, fromTag, toTag, MdnsSdp.forRtpengine(browserSdp, MDNS_PLACEHOLDER));
        towardIms(cmd);
        cmd.put("replace", List.of("origin")); // Firefox's o= line says IN IP4 0.0.0.0
        fromBrowser(cmd, null);
        String imsSdp = sdpOf(send(cmd));
        remember(callId, browserSdp, imsSdp);
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
        send(playDtmfCommand(ngId(callId), fromTag, digit, durationMs));
    }

    static Map<String, Object> playDtmfCommand(String callId, String fromTag, char digit, int durationMs) {
        Map<String, Object> cmd = command("play DTMF");
        cmd.put("call-id", Objects.requireNonNull(callId, "callId"));
        cmd.put("from-tag", Objects.requireNonNull(fromTag, "fromTag"));
        cmd.put("code", String.valueOf(digit));
        cmd.put("duration", durationMs);
        cmd.put("volume", DTMF_VOLUME);
        cmd.put("pause", DTMF_PAUSE_MS);
        return cmd;
    }

    /** Live counters; browserTag is the from-tag for MO calls and the to-tag for MT calls. */
    public MediaStats query(String callId, String browserTag) throws NgException {
        Map<String, Object> cmd = command("query");
        cmd.put("call-id", ngId(callId));
        MediaStats stats = statsOf(callId, send(cmd), browserTag);
        if (stats == null) {
            throw new NgException(NgException.Kind.PROTOCOL, "rtpengine query reply without 'tags'");
        }
        return stats;
    }

    /**
     * Deletes the whole call at once (delete-delay 0, else 10.5 keeps it listed for 30 s) and returns
     * the final counters when the reply carries them, else null. rtpengine 10.5 only reports stats when
     * the delete names a tag, and refuses a tag it never saw (MT call the browser never answered);
     * then a tag-less delete still removes the whole call.
     */
    public MediaStats delete(String callId, String browserTag) throws NgException {
        Objects.requireNonNull(callId, "callId");
        if (relays.size() > 1 && !holder.containsKey(callId)) {
            deleteEverywhere(callId);
            return null;
        }
        try {
            if (browserTag != null) {
                Map<String, Object> tagged = deleteCommand(callId);
                tagged.put("from-tag", browserTag);
                Map<String, Object> reply = send(tagged);
                if (reply.get("warning") == null) {
                    return statsOf(callId, reply, browserTag);
                }
            }
            send(deleteCommand(callId));
            return null;
        } finally {
            negotiated.remove(callId);
            holder.remove(callId);
            recoveriesAtOffer.remove(callId);
        }
    }

    /**
     * A session no call of this gateway is known to hold (an earlier run's, an orphan the reconciler found): a
     * tag-less delete on every relay that answers; fails only when none had it and one could not be asked.
     */
    private void deleteEverywhere(String callId) throws NgException {
        NgException unreachable = null;
        boolean deleted = false;
        for (RtpEngineRelay r : relays) {
            try {
                r.send(deleteCommand(callId));
                deleted = true;
            } catch (NgException e) {
                if (e.kind() != NgException.Kind.ERROR_RESULT) unreachable = e; // "unknown call-id" is the usual answer
            }
        }
        negotiated.remove(callId);
        if (!deleted && unreachable != null) throw unreachable;
    }

    private Map<String, Object> deleteCommand(String callId) {
        Map<String, Object> cmd = command("delete");
        cmd.put("call-id", ngId(callId));
        cmd.put("delete-delay", 0);
        return cmd;
    }

    /**
     * Call-ids (the gateway's, without the session prefix) of this gateway's sessions rtpengine holds now: every
     * relay's, together; fails when one of them cannot be asked (a partial list would make its calls look lost).
     */
    public List<String> list() throws NgException {
        List<String> out = new ArrayList<>();
        for (RtpEngineRelay r : relays) out.addAll(list(r));
        return out;
    }

    /** This gateway's sessions on one relay. */
    public List<String> list(RtpEngineRelay relay) throws NgException {
        Map<String, Object> cmd = command("list");
        // rtpengine's default limit is 32, too few for load runs; 1000 ids still fit one datagram.
        cmd.put("limit", 1000);
        Object calls = relay.send(cmd).get("calls");
        if (!(calls instanceof List<?> ids)) {
            throw new NgException(NgException.Kind.PROTOCOL, "rtpengine list reply without 'calls'");
        }
        List<String> out = new ArrayList<>(ids.size());
        for (Object id : ids) {
            String ours = callIdOf(String.valueOf(id));
            if (ours != null) out.add(ours);
        }
        return out;
    }

    /** True when every rtpengine answered pong. */
    public boolean ping() {
        boolean all = true;
        for (RtpEngineRelay r : relays) all &= r.ping();
        return all;
    }

    /** Each relay's ng address → whether it answered pong, in the configured order. */
    public Map<String, Boolean> pingEach() {
        Map<String, Boolean> out = new LinkedHashMap<>();
        for (RtpEngineRelay r : relays) out.put(r.name(), r.ping());
        return out;
    }

    /** Closes every relay's ng socket and breaker. */
    public void close() {
        for (RtpEngineRelay r : relays) {
            r.breaker().close();
            r.ng().close();
        }
    }

    /**
     * An SDP from the browser: ng `direction` [browser, IMS] (also on answers: the docs say rtpengine
     * remembers it, but sipwise/rtpengine#2012 saw answers need it), and on offers the ICE-lite side.
     */
    private void fromBrowser(Map<String, Object> cmd, String iceLiteOnOffer) {
        if (legs.named()) cmd.put("direction", List.of(legs.browserInterface(), legs.imsInterface()));
        if (legs.iceLite() && iceLiteOnOffer != null) cmd.put("ICE-lite", iceLiteOnOffer);
    }

    /** An SDP from IMS: ng `direction` [IMS, browser]; on offers ICE-lite toward the browser (`forward`). */
    private void fromIms(Map<String, Object> cmd, String iceLiteOnOffer) {
        if (legs.named()) cmd.put("direction", List.of(legs.imsInterface(), legs.browserInterface()));
        if (legs.iceLite() && iceLiteOnOffer != null) cmd.put("ICE-lite", iceLiteOnOffer);
    }

    private void towardIms(Map<String, Object> cmd) {
        cmd.put("transport-protocol", "RTP/AVP");
        cmd.put("ICE", "remove");
        cmd.put("rtcp-mux", List.of("demux"));
        cmd.put("flags", flags(false, "trust-address", "strip-extmap"));
    }

    /**
     * Re-offers: a browser's ICE restart brings a new default port in its m= line, and without this
     * rtpengine would move the other leg to new ports too, forcing a re-INVITE toward IMS.
     */
    @SuppressWarnings("unchecked")
    private static void keepPorts(Map<String, Object> cmd) {
        ((List<Object>) cmd.get("flags")).add("port-latching");
    }

    private static void towardBrowser(Map<String, Object> cmd, boolean injectDtmf) {
        cmd.put("transport-protocol", "UDP/TLS/RTP/SAVPF");
        cmd.put("ICE", "force");
        cmd.put("rtcp-mux", List.of("offer", "require"));
        if (injectDtmf) cmd.put("flags", flags(true));
    }

    /** The given ng flags, plus inject-DTMF when the call takes `play DTMF` from the browser. */
    private static List<Object> flags(boolean injectDtmf, String... base) {
        List<Object> out = new ArrayList<>(List.of((Object[]) base));
        if (injectDtmf) out.add(INJECT_DTMF);
        return out;
    }

    private static Map<String, Object> command(String name) {
        Map<String, Object> cmd = new LinkedHashMap<>();
        cmd.put("command", name);
        return cmd;
    }

    private Map<String, Object> sdpCommand(String name, String callId, String fromTag, String toTag,
                                           String sdp) {
        Map<String, Object> cmd = command(name);
        cmd.put("call-id", ngId(callId));
        cmd.put("from-tag", Objects.requireNonNull(fromTag, "fromTag"));
        if (toTag != null) {
            cmd.put("to-tag", toTag);
        }
        cmd.put("sdp", Objects.requireNonNull(sdp, "sdp"));
        return cmd;
    }

    private static String sdpOf(Map<String, Object> reply) throws NgException {
        if (reply.get("sdp") instanceof String sdp && !sdp.isEmpty()) {
            return sdp;
        }
        throw new NgException(NgException.Kind.PROTOCOL, "rtpengine reply without 'sdp'");
    }

    private void remember(String callId, String browserSdp, String imsSdp) {
        negotiated.put(callId, new Negotiated(SdpCodec.firstAudioCodec(browserSdp), SdpCodec.firstAudioCodec(imsSdp),
                SdpCodec.firstVideoCodec(browserSdp), SdpCodec.firstVideoCodec(imsSdp)));
    }

    private MediaStats statsOf(String callId, Map<String, Object> reply, String browserTag) {
        Negotiated n = negotiated.getOrDefault(callId, new Negotiated(null, null, null, null));
        return QueryStats.from(reply, browserTag, n.browser(), n.ims(), n.videoBrowser(), n.videoIms());
    }
}

package org.webrtcims.gw.media;

import static org.webrtcims.gw.media.NgFlags.CALL_ID;
import static org.webrtcims.gw.media.NgFlags.CODEC;
import static org.webrtcims.gw.media.NgFlags.FLAGS;
import static org.webrtcims.gw.media.NgFlags.FROM_TAG;
import static org.webrtcims.gw.media.NgFlags.REPLACE;
import static org.webrtcims.gw.media.NgFlags.command;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.webrtcims.gw.sdp.MdnsSdp;

/**
 * The ng commands of the gateway, one method per command and direction, each built from the {@link NgFlags}
 * vocabulary: no I/O (RtpEngineClient sends them through RtpEngineRelays). Tags: from-tag is the party that made
 * the offer being handled, to-tag the other one (null on a first offer). Call-ids get this gateway's session
 * prefix, so that its sessions are told from another gateway's, or from loadgen's, on a shared rtpengine.
 */
final class NgCommands {
    private final RtpEngineLegs legs;
    private final String sessionPrefix;

    NgCommands(RtpEngineLegs legs, String sessionPrefix) {
        if (sessionPrefix == null || sessionPrefix.chars().anyMatch(ch -> ch <= ' ')) {
            throw new IllegalArgumentException("rtpengine session prefix must have no spaces: '" + sessionPrefix + "'");
        }
        this.legs = Objects.requireNonNull(legs, "legs");
        this.sessionPrefix = sessionPrefix;
    }

    String sessionPrefix() { return sessionPrefix; }

    /** rtpengine's call-id for a gateway call-id. */
    String ngId(String callId) { return sessionPrefix + Objects.requireNonNull(callId, "callId"); }

    /** The gateway call-id of one of rtpengine's call-ids, or null when the session is not this gateway's. */
    String callIdOf(String ngCallId) {
        return ngCallId != null && ngCallId.startsWith(sessionPrefix) ? ngCallId.substring(sessionPrefix.length()) : null;
    }

    /**
     * `offer` of a browser SDP toward IMS (toTag non-null: a re-offer). codec: the `codec` dictionary
     * (CodecPolicy's choice), or null for none.
     */
    Map<String, Object> offerFromBrowser(String callId, String fromTag, String toTag, String browserSdp,
                                         Map<String, Object> codec) {
        return offerFromBrowser(callId, fromTag, toTag, browserSdp, codec, false);
    }

    /** As above; browserOpened: the call's first offer came from the browser (RtpEngineLegs#liteOnBrowserOffer). */
    Map<String, Object> offerFromBrowser(String callId, String fromTag, String toTag, String browserSdp,
                                         Map<String, Object> codec, boolean browserOpened) {
        Map<String, Object> cmd = sdpCommand(NgFlags.OFFER, callId, fromTag, toTag,
                MdnsSdp.forRtpengine(browserSdp, NgFlags.MDNS_PLACEHOLDER));
        NgFlags.towardIms(cmd);
        if (toTag != null) NgFlags.keepPorts(cmd);
        cmd.put(REPLACE, List.of("origin", "session-connection"));
        legs.fromBrowser(cmd, legs.liteOnBrowserOffer(browserOpened) ? NgFlags.BACKWARD : null);
        if (codec != null) cmd.put(CODEC, codec);
        return cmd;
    }

    /** `answer` with the IMS party's SDP toward the browser; dtlsRole is rtpengine's DTLS role toward the browser. */
    Map<String, Object> answerFromIms(String callId, String fromTag, String toTag, String imsSdp, String dtlsRole,
                                      boolean injectDtmf) {
        Map<String, Object> cmd = sdpCommand(NgFlags.ANSWER, callId, fromTag, toTag, imsSdp);
        NgFlags.towardBrowser(cmd, injectDtmf);
        legs.fromIms(cmd, null);
        cmd.put(NgFlags.DTLS, legs.dtlsRole(Objects.requireNonNull(dtlsRole, "dtlsRole")));
        return cmd;
    }

    /** `offer` of an IMS SDP toward the browser (toTag non-null: a re-offer); codec as in offerFromBrowser. */
    Map<String, Object> offerFromIms(String callId, String fromTag, String toTag, String imsSdp, boolean injectDtmf,
                                     Map<String, Object> codec) {
        Map<String, Object> cmd = sdpCommand(NgFlags.OFFER, callId, fromTag, toTag, imsSdp);
        NgFlags.towardBrowser(cmd, injectDtmf);
        cmd.put(NgFlags.SDES, List.of("off"));
        cmd.put(FLAGS, NgFlags.flags(injectDtmf, NgFlags.GENERATE_MID, NgFlags.TRUST_ADDRESS));
        if (toTag != null) NgFlags.keepPorts(cmd);
        legs.fromIms(cmd, NgFlags.FORWARD);
        if (codec != null) cmd.put(CODEC, codec);
        return cmd;
    }

    /** `answer` with the browser's SDP toward IMS. */
    Map<String, Object> answerFromBrowser(String callId, String fromTag, String toTag, String browserSdp) {
        Map<String, Object> cmd = sdpCommand(NgFlags.ANSWER, callId, fromTag, toTag,
                MdnsSdp.forRtpengine(browserSdp, NgFlags.MDNS_PLACEHOLDER));
        NgFlags.towardIms(cmd);
        cmd.put(REPLACE, List.of("origin")); // Firefox's o= line says IN IP4 0.0.0.0
        legs.fromBrowser(cmd, null);
        return cmd;
    }

    /** `play DTMF`: one digit as if fromTag had sent it, at -8 dBm0, 100 ms pause after it. */
    Map<String, Object> playDtmf(String callId, String fromTag, char digit, int durationMs) {
        Map<String, Object> cmd = command(NgFlags.PLAY_DTMF);
        cmd.put(CALL_ID, ngId(callId));
        cmd.put(FROM_TAG, Objects.requireNonNull(fromTag, "fromTag"));
        cmd.put("code", String.valueOf(digit));
        cmd.put("duration", durationMs);
        cmd.put("volume", NgFlags.DTMF_VOLUME);
        cmd.put("pause", NgFlags.DTMF_PAUSE_MS);
        return cmd;
    }

    /** `query` of one call's counters. */
    Map<String, Object> query(String callId) {
        Map<String, Object> cmd = command(NgFlags.QUERY);
        cmd.put(CALL_ID, ngId(callId));
        return cmd;
    }

    /** `delete` of the whole call at once; fromTag non-null makes rtpengine 10.5 report the final counters. */
    Map<String, Object> delete(String callId, String fromTag) {
        Map<String, Object> cmd = command(NgFlags.DELETE);
        cmd.put(CALL_ID, ngId(callId));
        cmd.put("delete-delay", NgFlags.DELETE_DELAY);
        if (fromTag != null) cmd.put(FROM_TAG, fromTag);
        return cmd;
    }

    /** `list` of the call-ids a relay holds (every owner's: callIdOf picks this gateway's). */
    static Map<String, Object> list() {
        Map<String, Object> cmd = command(NgFlags.LIST);
        cmd.put("limit", NgFlags.LIST_LIMIT);
        return cmd;
    }

    /** `statistics` of a relay (its uptime tells a restart). */
    static Map<String, Object> statistics() {
        return command(NgFlags.STATISTICS);
    }

    /** `ping`, answered `pong`. */
    static Map<String, Object> ping() {
        return Map.of(NgFlags.COMMAND, NgFlags.PING);
    }

    private Map<String, Object> sdpCommand(String name, String callId, String fromTag, String toTag, String sdp) {
        Map<String, Object> cmd = command(name);
        cmd.put(CALL_ID, ngId(callId));
        cmd.put(FROM_TAG, Objects.requireNonNull(fromTag, "fromTag"));
        if (toTag != null) cmd.put(NgFlags.TO_TAG, toTag);
        cmd.put(NgFlags.SDP, Objects.requireNonNull(sdp, "sdp"));
        return cmd;
    }
}

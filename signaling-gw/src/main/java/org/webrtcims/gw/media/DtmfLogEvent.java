package org.webrtcims.gw.media;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.Optional;

/**
 * One DTMF event as rtpengine 10.5 reports it to `--dtmf-log-dest`: one UDP datagram of JSON per RFC 4733
 * event, sent when its end packet arrives, e.g.
 * {"callid":"c1","source_tag":"t2","tags":["t1","t2"],"type":"DTMF","timestamp":1795445386,
 *  "source_ip":"127.0.0.1","event":5,"duration":140,"volume":10}.
 * `source_tag` is the party that sent the event; `duration` is in milliseconds.
 */
public record DtmfLogEvent(String callId, String sourceTag, int event, int durationMs) {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String DIGITS = "0123456789*#ABCD";

    /** The event, or empty when the datagram is not a DTMF record with call-id, tag and event. */
    public static Optional<DtmfLogEvent> parse(String datagram) {
        JsonNode n;
        try {
            n = JSON.readTree(datagram);
        } catch (Exception e) {
            return Optional.empty();
        }
        if (n == null || !n.isObject() || !"DTMF".equals(n.path("type").asText())) return Optional.empty();
        JsonNode callId = n.get("callid"), tag = n.get("source_tag"), event = n.get("event");
        if (callId == null || !callId.isTextual() || tag == null || !tag.isTextual()
                || event == null || !event.isIntegralNumber()) {
            return Optional.empty();
        }
        return Optional.of(new DtmfLogEvent(callId.asText(), tag.asText(), event.asInt(), n.path("duration").asInt(0)));
    }

    /** The key of RFC 4733 §3.2 events 0-15 (0-9, *, #, A-D); empty for other events (flash, tones). */
    public Optional<String> digit() {
        return event >= 0 && event < DIGITS.length() ? Optional.of(String.valueOf(DIGITS.charAt(event))) : Optional.empty();
    }
}

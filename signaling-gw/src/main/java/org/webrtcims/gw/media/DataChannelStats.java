package org.webrtcims.gw.media;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the data-channel endpoint tells of one call's session (its `query`/`delete` reply, docs/datachannel.md): the
 * state of each leg, the channels (stream on each leg, label, ordering) and per direction the messages, bytes and
 * drops, with the endpoint's own relay time per message. {@link #toMap} is the `dataChannels` object of the call info
 * (GET /api/v1/calls/{id}); with real-time text it has {@code text} ({@link TextBridgeStats}).
 */
public record DataChannelStats(String browserLeg, String imsLeg, List<Channel> channels, Direction toIms,
                               Direction toBrowser, TextBridgeStats text) {
    public record Channel(int browserStream, int imsStream, String label, boolean ordered, boolean negotiated) { }

    /** One direction: messages and bytes relayed, dropped, and the endpoint's time per message in µs (null: none). */
    public record Direction(long messages, long bytes, long dropped, Long relayUsP50, Long relayUsP99, Long relayUsMax) { }

    static DataChannelStats of(Map<String, Object> reply) {
        Map<?, ?> legs = reply.get("legs") instanceof Map<?, ?> m ? m : Map.of();
        List<Channel> chans = new ArrayList<>();
        if (reply.get("channels") instanceof List<?> l) {
            for (Object o : l) {
                if (!(o instanceof Map<?, ?> c)) continue;
                chans.add(new Channel(num(c.get("browser-stream")).intValue(), num(c.get("ims-stream")).intValue(),
                        String.valueOf(c.get("label")), "yes".equals(c.get("ordered")), "yes".equals(c.get("negotiated"))));
            }
        }
        return new DataChannelStats(state(legs.get("browser")), state(legs.get("ims")), chans,
                direction(reply.get("browser-to-ims")), direction(reply.get("ims-to-browser")),
                TextBridgeStats.of(reply.get("text")));
    }

    public Map<String, Object> toMap() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("browserLeg", browserLeg);
        out.put("imsLeg", imsLeg);
        List<Map<String, Object>> cs = new ArrayList<>();
        for (Channel c : channels) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("label", c.label());
            m.put("browserStream", c.browserStream());
            m.put("imsStream", c.imsStream());
            m.put("ordered", c.ordered());
            m.put("negotiated", c.negotiated());
            cs.add(m);
        }
        out.put("channels", cs);
        out.put("toIms", direction(toIms));
        out.put("toBrowser", direction(toBrowser));
        if (text != null) out.put("text", text.toMap());
        return out;
    }

    private static Map<String, Object> direction(Direction d) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("messages", d.messages());
        m.put("bytes", d.bytes());
        m.put("dropped", d.dropped());
        m.put("relayUsP50", d.relayUsP50());
        m.put("relayUsP99", d.relayUsP99());
        m.put("relayUsMax", d.relayUsMax());
        return m;
    }

    private static String state(Object leg) {
        return leg instanceof Map<?, ?> m && m.get("state") != null ? String.valueOf(m.get("state")) : null;
    }

    private static Direction direction(Object o) {
        Map<?, ?> m = o instanceof Map<?, ?> d ? d : Map.of();
        return new Direction(num(m.get("messages")).longValue(), num(m.get("bytes")).longValue(),
                num(m.get("dropped")).longValue(), opt(m.get("relay-us-p50")), opt(m.get("relay-us-p99")),
                opt(m.get("relay-us-max")));
    }

    private static Number num(Object o) { return o instanceof Number n ? n : 0L; }

    private static Long opt(Object o) { return o instanceof Number n ? n.longValue() : null; }
}

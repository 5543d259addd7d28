package org.webrtcims.gw.media;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The text bridge's part of the data-channel endpoint's `query`/`delete` reply (docs/datachannel.md "Control
 * protocol", `text`): the `text` object of the call info's `dataChannels`. Keys as the endpoint names them, in the
 * call info's camelCase: {@code state}, {@code channel}, {@code redundancy} (generations in use), {@code toIms}
 * (the T.140 channel's messages and chars, the RTP packets and chars sent) and {@code toBrowser} (RTP packets in
 * order, {@code recovered} from redundancy, {@code lost}, {@code stale}, {@code refused}, and the messages and
 * chars sent on the channel).
 */
public final class TextBridgeStats {
    private final Map<String, Object> map;

    private TextBridgeStats(Map<String, Object> map) { this.map = map; }

    /** From the reply's `text` dictionary; null when the call has no text bridge. */
    static TextBridgeStats of(Object text) {
        if (!(text instanceof Map<?, ?> t)) return null;
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : t.entrySet()) {
            String key = String.valueOf(e.getKey());
            key = switch (key) {
                case "browser-to-ims" -> "toIms";
                case "ims-to-browser" -> "toBrowser";
                default -> camel(key);
            };
            out.put(key, e.getValue() instanceof Map<?, ?> m ? of(m).map : e.getValue());
        }
        return new TextBridgeStats(out);
    }

    /** A counter of one direction ("toIms"/"toBrowser"), 0 when absent. */
    public long count(String direction, String key) {
        return map.get(direction) instanceof Map<?, ?> d && d.get(key) instanceof Number n ? n.longValue() : 0;
    }

    public Map<String, Object> toMap() { return map; }

    private static String camel(String kebab) {
        StringBuilder b = new StringBuilder();
        boolean up = false;
        for (char c : kebab.toCharArray()) {
            if (c == '-') {
                up = true;
            } else {
                b.append(up ? Character.toUpperCase(c) : c);
                up = false;
            }
        }
        return b.toString();
    }
}

package org.webrtcims.gw.call;

import java.util.LinkedHashMap;
import java.util.Map;

/** Builds the JSON-shaped messages the gateway sends to browsers. */
final class CallMessages {
    private CallMessages() { }

    static Map<String, Object> of(String type, String callId, Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", type);
        if (callId != null) m.put("callId", callId);
        for (int i = 0; i + 1 < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        return m;
    }
}

package org.webrtcims.gw.call;

import java.util.Map;

/** Delivers call events to the browser session that owns the call. */
public interface CallEventSink {
    void toBrowser(String sessionToken, Map<String, Object> message);
}

package org.webrtcims.gw.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.web.socket.TextMessage;
import org.springframework.web.socket.WebSocketSession;
import org.webrtcims.gw.call.CallEventSink;
import org.webrtcims.gw.metrics.SetupTimeline;

import java.io.IOException;
import java.util.Map;

/** Sends gateway → browser messages as JSON text frames on the session's WebSocket. */
@Component
public class WebSocketEvents implements CallEventSink {
    private static final Logger log = LoggerFactory.getLogger(WebSocketEvents.class);

    private final SessionStore sessions;
    private final ObjectMapper json;
    private final SetupTimeline timeline;

    public WebSocketEvents(SessionStore sessions, ObjectMapper json) {
        this(sessions, json, SetupTimeline.off());
    }

    @org.springframework.beans.factory.annotation.Autowired
    public WebSocketEvents(SessionStore sessions, ObjectMapper json, SetupTimeline timeline) {
        this.sessions = sessions;
        this.json = json;
        this.timeline = timeline;
    }

    @Override
    public void toBrowser(String sessionToken, Map<String, Object> message) {
        // no lambda: the first call's `calling` goes under the call's lock (docs/architecture.md "Starting the gateway")
        BrowserSession s = sessions.byToken(sessionToken).orElse(null);
        WebSocketSession ws = s == null ? null : s.socket();
        if (ws != null) send(ws, message);
        // the set-up timeline: the SDP the call's set-up waited for went to the browser (MT: the IMS offer; MO: the answer)
        if (message.get("sdp") != null && message.get("callId") instanceof String id) {
            Object type = message.get("type");
            if ("incoming".equals(type)) timeline.mark(id, SetupTimeline.Mark.INCOMING_SENT);
            else if ("answered".equals(type) || "progress".equals(type)) timeline.mark(id, SetupTimeline.Mark.ANSWER_SENT);
        }
    }

    void send(WebSocketSession ws, Map<String, Object> message) {
        try {
            String text = json.writeValueAsString(message);
            synchronized (ws) { // one writer at a time per socket (SIP threads and the socket's own thread)
                if (ws.isOpen()) ws.sendMessage(new TextMessage(text));
            }
        } catch (JsonProcessingException e) {
            log.error("cannot encode {}: {}", message.get("type"), e.getMessage());
        } catch (IOException | IllegalStateException e) {
            log.debug("socket gone while sending {}: {}", message.get("type"), e.getMessage());
        }
    }
}

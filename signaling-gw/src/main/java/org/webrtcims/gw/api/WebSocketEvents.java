package org.webrtcims.gw.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.web.socket.TextMessage;
import org.springframework.web.socket.WebSocketSession;
import org.webrtcims.gw.call.CallEventSink;

import java.io.IOException;
import java.util.Map;

/** Sends gateway → browser messages as JSON text frames on the session's WebSocket. */
@Component
public class WebSocketEvents implements CallEventSink {
    private static final Logger log = LoggerFactory.getLogger(WebSocketEvents.class);

    private final SessionStore sessions;
    private final ObjectMapper json;

    public WebSocketEvents(SessionStore sessions, ObjectMapper json) {
        this.sessions = sessions;
        this.json = json;
    }

    @Override
    public void toBrowser(String sessionToken, Map<String, Object> message) {
        sessions.byToken(sessionToken).map(BrowserSession::socket).ifPresent(ws -> send(ws, message));
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

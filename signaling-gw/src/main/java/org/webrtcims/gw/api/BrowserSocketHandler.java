package org.webrtcims.gw.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.web.socket.CloseStatus;
import org.springframework.web.socket.TextMessage;
import org.springframework.web.socket.WebSocketSession;
import org.springframework.web.socket.SubProtocolCapable;
import org.springframework.web.socket.handler.TextWebSocketHandler;
import org.webrtcims.gw.call.CallFailure;
import org.webrtcims.gw.call.CallService;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.metrics.SetupTimeline;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The browser's WebSocket: one JSON message per frame. Bad input gets an `error` with a stable code;
 * the socket and the user's other calls carry on.
 */
@Component
public class BrowserSocketHandler extends TextWebSocketHandler implements SubProtocolCapable {
    private static final Logger log = LoggerFactory.getLogger(BrowserSocketHandler.class);
    static final String SESSION_ATTR = "browserSession";

    private final SessionRegistry sessions;
    private final CallService calls;
    private final WebSocketEvents events;
    private final ObjectMapper json;
    private final int maxBytes;
    private final int perSecond;
    private final SocketKeepalive keepalive;
    private final SetupTimeline timeline;
    /** How long a session outlives its lost socket, waiting for a new one with its token (lab.api.ws-reconnect-grace-ms). */
    private final long graceMs;
    static final String RATE_ATTR = "messageRate";

    public BrowserSocketHandler(SessionRegistry sessions, CallService calls, WebSocketEvents events,
                                ObjectMapper json, GatewayProperties props) {
        this(sessions, calls, events, json, props, new SocketKeepalive(0, 0));
    }

    public BrowserSocketHandler(SessionRegistry sessions, CallService calls, WebSocketEvents events,
                                ObjectMapper json, GatewayProperties props, SocketKeepalive keepalive) {
        this(sessions, calls, events, json, props, keepalive, SetupTimeline.off());
    }

    @org.springframework.beans.factory.annotation.Autowired
    public BrowserSocketHandler(SessionRegistry sessions, CallService calls, WebSocketEvents events,
                                ObjectMapper json, GatewayProperties props, SocketKeepalive keepalive, SetupTimeline timeline) {
        this.timeline = timeline;
        this.keepalive = keepalive;
        this.graceMs = props.getApi().getWsReconnectGraceMs();
        keepalive.onDead(this::afterConnectionClosed);
        this.sessions = sessions;
        this.calls = calls;
        this.events = events;
        this.json = json;
        this.maxBytes = props.getApi().getMaxMessageBytes();
        this.perSecond = props.getApi().getWsMessagesPerSecond();
    }

    /** The subprotocol the gateway selects; the token rides along as `lab.token.<token>` (WebSocketConfig). */
    @Override
    public java.util.List<String> getSubProtocols() { return java.util.List.of(WebSocketConfig.PROTOCOL); }

    /** A token bucket per socket: `perSecond` messages a second, bursts of as many. */
    static final class MessageRate {
        private final int perSecond;
        private double tokens;
        private long lastNanos;

        MessageRate(int perSecond, long nowNanos) {
            this.perSecond = perSecond;
            this.tokens = perSecond;
            this.lastNanos = nowNanos;
        }

        synchronized boolean take(long nowNanos) {
            tokens = Math.min(perSecond, tokens + (nowNanos - lastNanos) * perSecond / 1e9);
            lastNanos = nowNanos;
            if (tokens < 1) return false;
            tokens -= 1;
            return true;
        }
    }

    @Override
    public void afterConnectionEstablished(WebSocketSession ws) throws Exception {
        BrowserSession s = (BrowserSession) ws.getAttributes().get(SESSION_ATTR);
        if (s == null || sessions.byToken(s.token()).isEmpty()) {
            ws.close(CloseStatus.POLICY_VIOLATION.withReason("session ended"));
            return;
        }
        WebSocketSession old = s.socket();
        s.attach(ws);
        keepalive.opened(ws);
        if (old != null && !old.isOpen()) log.info("{} reconnected: the new WebSocket takes over the session and its calls", s.user());
        if (old != null && old.isOpen()) old.close(CloseStatus.NORMAL.withReason("replaced by a new connection"));
    }

    /**
     * The socket's message rate, made at its first message (its messages come one at a time). No lambda: the first
     * message of a fresh gateway is loadgen's first call (docs/architecture.md "Starting the gateway").
     */
    private MessageRate rateOf(WebSocketSession ws) {
        MessageRate rate = (MessageRate) ws.getAttributes().get(RATE_ATTR);
        if (rate == null) {
            rate = new MessageRate(perSecond, System.nanoTime());
            ws.getAttributes().put(RATE_ATTR, rate);
        }
        return rate;
    }

    @Override
    protected void handlePongMessage(WebSocketSession ws, org.springframework.web.socket.PongMessage message) {
        keepalive.seen(ws);
    }

    @Override
    protected void handleTextMessage(WebSocketSession ws, TextMessage frame) {
        long received = System.nanoTime();
        long receivedCpu = SetupTimeline.cpuNow();
        keepalive.seen(ws);
        BrowserSession s = (BrowserSession) ws.getAttributes().get(SESSION_ATTR);
        MessageRate rate = rateOf(ws);
        if (!rate.take(System.nanoTime())) {
            error(ws, null, "rate-limited", "more than " + perSecond + " messages per second; this one was dropped");
            return;
        }
        if (frame.getPayloadLength() > maxBytes) {
            error(ws, null, "too-large", "message of " + frame.getPayloadLength() + " bytes exceeds " + maxBytes);
            return;
        }
        JsonNode msg;
        try {
            msg = json.readTree(frame.getPayload());
        } catch (Exception e) {
            error(ws, null, "bad-json", notJson(e));
            return;
        }
        if (msg == null || !msg.isObject() || !msg.path("type").isTextual()) {
            error(ws, null, "bad-message", "a JSON object with a string 'type' is expected");
            return;
        }
        String type = msg.get("type").asText();
        String callId = text(msg, "callId");
        try {
            switch (type) {
                case "call" -> timeline.markKnown(calls.call(s.token(), s.user(), text(msg, "to"), text(msg, "sdp"), imsCodec(msg),
                        injectDtmf(msg), identity(msg)), SetupTimeline.Mark.WS_CALL_RECEIVED, received, receivedCpu);
                case "answer" -> {
                    timeline.markKnown(callId, SetupTimeline.Mark.WS_ANSWER_RECEIVED, received, receivedCpu);
                    calls.answer(s.token(), callId, text(msg, "sdp"), injectDtmf(msg));
                }
                case "media" -> calls.earlyMedia(s.token(), callId, text(msg, "sdp"), injectDtmf(msg));
                case "reoffer" -> calls.reoffer(s.token(), callId, text(msg, "sdp"));
                case "reanswer" -> calls.reanswer(s.token(), callId, text(msg, "sdp"));
                case "dtmf" -> calls.dtmf(s.token(), callId, text(msg, "digits"), durationMs(msg));
                case "hangup", "reject" -> calls.hangup(s.token(), callId);
                case "media-report" -> calls.mediaReport(s.token(), callId, packetsReceived(msg));
                case "ping" -> events.send(ws, Map.of("type", "pong"));
                default -> error(ws, callId, "unknown-type", "unknown message type '" + type + "'");
            }
        } catch (CallFailure f) {
            error(ws, f.callId() != null ? f.callId() : callId, f.code(), f.getMessage());
        } catch (RuntimeException e) {
            log.warn("{} from {} failed", type, s.user(), e);
            error(ws, callId, "internal", "the gateway failed to handle '" + type + "'");
        }
    }

    @Override
    public void afterConnectionClosed(WebSocketSession ws, CloseStatus status) {
        keepalive.closed(ws);
        BrowserSession s = (BrowserSession) ws.getAttributes().get(SESSION_ATTR);
        if (s == null || s.socket() != ws) return;
        if (graceMs <= 0) {
            sessions.end(s, "websocket-closed", false);
            return;
        }
        // The calls and the registration wait for a new socket with the same token (it attaches itself).
        log.info("{}: WebSocket lost ({}); keeping the session {} ms for a reconnect", s.user(), status.getCode(), graceMs);
        keepalive.after(graceMs, () -> {
            if (s.socket() == ws) sessions.end(s, "websocket-closed", false);
        });
    }

    private void error(WebSocketSession ws, String callId, String code, String message) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "error");
        if (callId != null) m.put("callId", callId);
        m.put("code", code);
        m.put("message", message);
        events.send(ws, m);
    }

    private static String text(JsonNode msg, String field) {
        JsonNode n = msg.get(field);
        return n != null && n.isTextual() ? n.asText() : null;
    }

    /** `call.imsCodec`: absent or null = pass-through; anything but a string is a bad message. */
    private static String imsCodec(JsonNode msg) {
        JsonNode n = msg.get("imsCodec");
        if (n == null || n.isNull()) return null;
        if (!n.isTextual()) throw new CallFailure("bad-message", "'imsCodec' must be a string");
        return n.asText();
    }

    /** `call.identity`: a registered public user identity to call as; absent or null = the default one. */
    static String identity(JsonNode msg) {
        JsonNode n = msg.get("identity");
        if (n == null || n.isNull()) return null;
        if (!n.isTextual()) throw new CallFailure("bad-message", "'identity' must be a string (one of the registered identities)");
        return n.asText();
    }

    /**
     * `dtmf` of `call`/`answer`/`media`: "inject" = the call takes WebSocket `dtmf` messages (rtpengine injects
     * them, at the price of decoding and re-encoding the browser's audio); absent or null = pure relaying.
     */
    static boolean injectDtmf(JsonNode msg) {
        JsonNode n = msg.get("dtmf");
        if (n == null || n.isNull()) return false;
        if (n.isTextual() && n.asText().equals("inject")) return true;
        throw new CallFailure("bad-message", "'dtmf' must be \"inject\" (or left out for a relayed call), got " + n);
    }

    /** `media-report.packetsReceived`: a whole number is required. */
    private static long packetsReceived(JsonNode msg) {
        JsonNode n = msg.get("packetsReceived");
        if (n == null || !n.isIntegralNumber() || !n.canConvertToLong()) {
            throw new CallFailure("bad-message", "'packetsReceived' must be an integer");
        }
        return n.asLong();
    }

    /** `dtmf.durationMs`: absent or null = the default; anything but an integer is a bad message. */
    private static Integer durationMs(JsonNode msg) {
        JsonNode n = msg.get("durationMs");
        if (n == null || n.isNull()) return null;
        if (!n.isIntegralNumber() || !n.canConvertToInt()) throw new CallFailure("bad-message", "'durationMs' must be an integer");
        return n.asInt();
    }

    /**
     * What was wrong with a message that is no JSON, without the parser's own text (it names its classes, e.g.
     * `StreamReadConstraints.getMaxNestingDepth()` for a too-deep message): the limit it broke or where it stopped.
     */
    static String notJson(Exception e) {
        if (e instanceof com.fasterxml.jackson.core.exc.StreamConstraintsException) {
            return "not JSON the gateway reads: nested too deep or a number or string too long";
        }
        if (e instanceof com.fasterxml.jackson.core.JsonProcessingException j && j.getLocation() != null) {
            return "not JSON: malformed at line " + j.getLocation().getLineNr() + ", column " + j.getLocation().getColumnNr();
        }
        return "not JSON";
    }
}

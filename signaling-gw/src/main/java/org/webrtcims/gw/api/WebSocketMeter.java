package org.webrtcims.gw.api;

import org.springframework.web.socket.CloseStatus;
import org.springframework.web.socket.WebSocketHandler;
import org.springframework.web.socket.WebSocketSession;
import org.springframework.web.socket.handler.WebSocketHandlerDecorator;
import org.webrtcims.gw.metrics.GatewayMetrics;

/**
 * Counts open browser WebSockets (`gw_websocket_sessions`) around the real handler; Spring unwraps the decorator
 * to find the handler's subprotocols, so the `lab.v1` negotiation is unchanged.
 */
final class WebSocketMeter extends WebSocketHandlerDecorator {
    /** Set by the handshake when the socket is over lab.api.ws-connections-per-address (the source address). */
    static final String REFUSED_ATTR = "lab.socketRefused";

    private final GatewayMetrics metrics;
    private final SocketsPerAddress perAddress;
    private final WebSocketEvents events;

    WebSocketMeter(WebSocketHandler handler, GatewayMetrics metrics, SocketsPerAddress perAddress, WebSocketEvents events) {
        super(handler);
        this.metrics = metrics;
        this.perAddress = perAddress;
        this.events = events;
    }

    @Override
    public void afterConnectionEstablished(WebSocketSession session) throws Exception {
        Object refused = session.getAttributes().get(REFUSED_ATTR);
        if (refused != null) {
            // refused before the session's handler sees it: the session, its socket and its calls stay as they are
            String why = "more than " + perAddress.limit() + " WebSockets from " + refused + " (lab.api.ws-connections-per-address)";
            events.send(session, java.util.Map.of("type", "error", "code", "too-many-connections", "message", why));
            session.close(new CloseStatus(SocketsPerAddress.CLOSE_CODE, "too-many-connections"));
            return;
        }
        metrics.webSocketOpened();
        super.afterConnectionEstablished(session);
    }

    @Override
    public void afterConnectionClosed(WebSocketSession session, CloseStatus closeStatus) throws Exception {
        if (session.getAttributes().get(REFUSED_ATTR) != null) return;
        if (session.getAttributes().get(SocketsPerAddress.TICKET_ATTR) instanceof SocketsPerAddress.Ticket t) t.release();
        metrics.webSocketClosed();
        super.afterConnectionClosed(session, closeStatus);
    }

    @Override
    public void handleMessage(WebSocketSession session, org.springframework.web.socket.WebSocketMessage<?> message) throws Exception {
        if (session.getAttributes().get(REFUSED_ATTR) != null) return;
        super.handleMessage(session, message);
    }

    @Override
    public void handleTransportError(WebSocketSession session, Throwable exception) throws Exception {
        if (session.getAttributes().get(REFUSED_ATTR) != null) return;
        super.handleTransportError(session, exception);
    }
}

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
    private final GatewayMetrics metrics;

    WebSocketMeter(WebSocketHandler handler, GatewayMetrics metrics) {
        super(handler);
        this.metrics = metrics;
    }

    @Override
    public void afterConnectionEstablished(WebSocketSession session) throws Exception {
        metrics.webSocketOpened();
        super.afterConnectionEstablished(session);
    }

    @Override
    public void afterConnectionClosed(WebSocketSession session, CloseStatus closeStatus) throws Exception {
        metrics.webSocketClosed();
        super.afterConnectionClosed(session, closeStatus);
    }
}

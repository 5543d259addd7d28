package org.webrtcims.gw.api;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.ServerHttpRequest;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.web.socket.WebSocketHandler;
import org.springframework.web.socket.config.annotation.EnableWebSocket;
import org.springframework.web.socket.config.annotation.WebSocketConfigurer;
import org.springframework.web.socket.config.annotation.WebSocketHandlerRegistry;
import org.springframework.web.socket.server.HandshakeInterceptor;
import org.springframework.web.socket.server.standard.ServletServerContainerFactoryBean;

import org.webrtcims.gw.metrics.GatewayMetrics;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * `/ws`: the upgrade is refused (401) without a live session token (the WAF role of TS 24.371). The token
 * travels as a WebSocket subprotocol, never in the URL: the client offers `Sec-WebSocket-Protocol:
 * lab.v1, lab.token.<token>` and the gateway selects `lab.v1`. The Origin is checked by {@link OriginCheck}.
 */
@Configuration
@EnableWebSocket
public class WebSocketConfig implements WebSocketConfigurer {
    public static final String PROTOCOL = "lab.v1";
    public static final String TOKEN_PROTOCOL_PREFIX = "lab.token.";

    private final BrowserSocketHandler handler;
    private final SessionRegistry sessions;
    private final GatewayMetrics metrics;

    private final SocketsPerAddress perAddress;

    private final WebSocketEvents events;

    public WebSocketConfig(BrowserSocketHandler handler, SessionRegistry sessions, GatewayMetrics metrics,
                           org.webrtcims.gw.config.GatewayProperties props, WebSocketEvents events) {
        this.metrics = metrics;
        this.events = events;
        this.handler = handler;
        this.sessions = sessions;
        this.perAddress = new SocketsPerAddress(props.getApi().getWsConnectionsPerAddress());
    }

    @Override
    public void registerWebSocketHandlers(WebSocketHandlerRegistry registry) {
        // Origins are checked for /api and /ws alike by the OriginCheck filter, before this handshake.
        registry.addHandler(new WebSocketMeter(handler, metrics, perAddress, events), "/ws").addInterceptors(new TokenCheck()).setAllowedOriginPatterns("*");
    }

    /**
     * Frames up to twice the API limit (lab.api.max-message-bytes, 64 KiB) reach the handler, which answers
     * `too-large` above the limit instead of dropping the socket; larger ones close it (1009). Tomcat keeps a
     * buffer of this size per open socket: at 1 MiB the registration-scale bench ran the 6 GB heap out at
     * ~1470 sockets (docs/benchmarks.md "Registration scale").
     */
    @Bean
    public ServletServerContainerFactoryBean webSocketContainer(org.webrtcims.gw.config.GatewayProperties props) {
        ServletServerContainerFactoryBean c = new ServletServerContainerFactoryBean();
        c.setMaxTextMessageBufferSize(2 * props.getApi().getMaxMessageBytes());
        c.setMaxSessionIdleTimeout(0L);
        return c;
    }

    /** Pings and the idle check of browser sockets (lab.api.ws-ping-ms, lab.api.ws-idle-timeout-ms). */
    @Bean
    public static SocketKeepalive socketKeepalive(org.webrtcims.gw.config.GatewayProperties props) {
        return new SocketKeepalive(props.getApi().getWsPingMs(), props.getApi().getWsIdleTimeoutMs());
    }

    /** The token offered as `lab.token.<token>` among the Sec-WebSocket-Protocol values, if any. */
    static Optional<String> tokenOf(List<String> protocolHeaders) {
        if (protocolHeaders == null) return Optional.empty();
        for (String header : protocolHeaders) {
            for (String p : header.split(",")) {
                String v = p.trim();
                if (v.startsWith(TOKEN_PROTOCOL_PREFIX) && v.length() > TOKEN_PROTOCOL_PREFIX.length()) {
                    return Optional.of(v.substring(TOKEN_PROTOCOL_PREFIX.length()));
                }
            }
        }
        return Optional.empty();
    }

    private final class TokenCheck implements HandshakeInterceptor {
        @Override
        public boolean beforeHandshake(ServerHttpRequest request, ServerHttpResponse response,
                                       WebSocketHandler wsHandler, Map<String, Object> attributes) {
            return tokenOf(request.getHeaders().get("Sec-WebSocket-Protocol")).flatMap(sessions::byToken).map(s -> {
                attributes.put(BrowserSocketHandler.SESSION_ATTR, s);
                // over lab.api.ws-connections-per-address: no ticket, refused once open (WebSocketMeter)
                java.net.InetSocketAddress peer = request.getRemoteAddress();
                SocketsPerAddress.Ticket ticket = perAddress.tryOpen(peer == null ? null : peer.getAddress());
                if (ticket != null) {
                    attributes.put(SocketsPerAddress.TICKET_ATTR, ticket);
                    if (request instanceof org.springframework.http.server.ServletServerHttpRequest r) {
                        r.getServletRequest().setAttribute(SocketsPerAddress.TICKET_ATTR, ticket); // for afterHandshake
                    }
                }
                else attributes.put(WebSocketMeter.REFUSED_ATTR, peer == null ? "?" : peer.getAddress().getHostAddress());
                return true;
            }).orElseGet(() -> {
                response.setStatusCode(HttpStatus.UNAUTHORIZED);
                return false;
            });
        }

        @Override
        public void afterHandshake(ServerHttpRequest request, ServerHttpResponse response,
                                   WebSocketHandler wsHandler, Exception exception) {
            // a failed upgrade never opens: its ticket is given back here (else on the socket's close)
            if (exception != null && request instanceof org.springframework.http.server.ServletServerHttpRequest r) {
                Object t = r.getServletRequest().getAttribute(SocketsPerAddress.TICKET_ATTR);
                if (t instanceof SocketsPerAddress.Ticket ticket) ticket.release();
            }
        }
    }
}

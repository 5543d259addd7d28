package org.webrtcims.gw.api;

import org.springframework.web.socket.WebSocketSession;

/** A logged-in browser user: the token it presents, when that token expires and, once connected, its WebSocket. */
public final class BrowserSession {
    private final String token;
    private final String user;
    private final long expiresAtMillis;
    private volatile WebSocketSession socket;

    BrowserSession(String token, String user, long expiresAtMillis) {
        this.token = token;
        this.user = user;
        this.expiresAtMillis = expiresAtMillis;
    }

    public String token() { return token; }
    public String user() { return user; }
    public long expiresAtMillis() { return expiresAtMillis; }
    WebSocketSession socket() { return socket; }
    void attach(WebSocketSession ws) { this.socket = ws; }
}

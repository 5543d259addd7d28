package org.webrtcims.gw.api;

import org.springframework.web.socket.WebSocketSession;

/** A logged-in browser user: the token it presents and, once connected, its WebSocket. */
public final class BrowserSession {
    private final String token;
    private final String user;
    private volatile WebSocketSession socket;

    BrowserSession(String token, String user) {
        this.token = token;
        this.user = user;
    }

    public String token() { return token; }
    public String user() { return user; }
    WebSocketSession socket() { return socket; }
    void attach(WebSocketSession ws) { this.socket = ws; }
}

package org.webrtcims.gw.api;

import org.springframework.http.HttpStatus;

/** The `Authorization: Bearer <token>` check of the REST calls. */
final class Bearer {
    private Bearer() { }

    static BrowserSession session(SessionRegistry sessions, String header) {
        return sessions.byToken(token(header)).orElseThrow(() ->
                new ApiException(HttpStatus.UNAUTHORIZED, "bad-token", "a valid 'Authorization: Bearer <token>' is required"));
    }

    /** The token of an `Authorization: Bearer <token>` header; null without one. */
    static String token(String header) {
        return header != null && header.startsWith("Bearer ") ? header.substring(7).trim() : null;
    }
}

package org.webrtcims.gw.api;

import org.springframework.http.HttpStatus;

/** The `Authorization: Bearer <token>` check of the REST calls. */
final class Bearer {
    private Bearer() { }

    static BrowserSession session(SessionRegistry sessions, String header) {
        String token = header != null && header.startsWith("Bearer ") ? header.substring(7).trim() : null;
        return sessions.byToken(token).orElseThrow(() ->
                new ApiException(HttpStatus.UNAUTHORIZED, "bad-token", "a valid 'Authorization: Bearer <token>' is required"));
    }
}

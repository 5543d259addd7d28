package org.webrtcims.gw.api;

import org.springframework.stereotype.Component;
import org.webrtcims.gw.call.UserDirectory;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** Live browser sessions by token and by user (the newest session of a user wins). */
@Component
public class SessionStore implements UserDirectory {
    private final Map<String, BrowserSession> byToken = new ConcurrentHashMap<>();
    private final Map<String, BrowserSession> byUser = new ConcurrentHashMap<>();

    void add(BrowserSession s) {
        byToken.put(s.token(), s);
        byUser.put(s.user(), s);
    }

    /** @return false when the session was already gone */
    boolean remove(BrowserSession s) {
        if (byToken.remove(s.token()) == null) return false;
        byUser.remove(s.user(), s);
        return true;
    }

    int size() { return byToken.size(); }

    java.util.List<BrowserSession> all() { return java.util.List.copyOf(byToken.values()); }

    Optional<BrowserSession> ofUser(String user) { return Optional.ofNullable(byUser.get(user)); }

    public Optional<BrowserSession> byToken(String token) {
        return token == null ? Optional.empty() : Optional.ofNullable(byToken.get(token));
    }

    @Override
    public Optional<String> sessionOf(String user) {
        BrowserSession s = byUser.get(user); // no lambda: an MT call's set-up path (docs/architecture.md "Starting the gateway")
        return s == null ? Optional.empty() : Optional.ofNullable(s.token());
    }
}

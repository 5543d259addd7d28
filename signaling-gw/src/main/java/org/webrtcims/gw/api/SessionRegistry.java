package org.webrtcims.gw.api;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.call.CallService;
import org.webrtcims.gw.sip.RegistrationClient;
import org.webrtcims.gw.sip.RegistrationException;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.regex.Pattern;

/**
 * Browser sessions by token. Logging in registers the user with IMS (the registrar checks the password);
 * logging out or losing the WebSocket ends the user's calls and de-registers.
 */
@Component
public class SessionRegistry {
    private static final Logger log = LoggerFactory.getLogger(SessionRegistry.class);
    private static final Pattern USER = Pattern.compile("[A-Za-z0-9._+-]{1,64}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private final RegistrationClient registration;
    private final CallService calls;
    private final SessionStore store;

    public SessionRegistry(RegistrationClient registration, CallService calls, SessionStore store) {
        this.registration = registration;
        this.calls = calls;
        this.store = store;
    }

    public BrowserSession login(String user, String password) {
        if (user == null || !USER.matcher(user).matches()) {
            throw new ApiException(HttpStatus.BAD_REQUEST, "bad-message", "user must be 1-64 characters of A-Z a-z 0-9 . _ + -");
        }
        if (password == null || password.isEmpty()) {
            throw new ApiException(HttpStatus.BAD_REQUEST, "bad-message", "password is required");
        }
        try {
            registration.checkLogin(user, password); // --lab.ims.credentials: a wrong password must not end the user's session
        } catch (RegistrationException e) {
            throw mapRegistrationFailure(e);
        }
        store.ofUser(user).ifPresent(previous -> end(previous, "replaced", true));
        try {
            registration.register(user, password).get();
        } catch (ExecutionException e) {
            throw mapRegistrationFailure(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException(HttpStatus.SERVICE_UNAVAILABLE, "ims-timeout", "interrupted");
        }
        BrowserSession s = new BrowserSession(newToken(), user);
        store.add(s);
        log.info("{} logged in and registered", user);
        return s;
    }

    private static ApiException mapRegistrationFailure(Throwable cause) {
        if (cause instanceof RegistrationException r) {
            return switch (r.kind()) {
                case AUTH_FAILED -> new ApiException(HttpStatus.UNAUTHORIZED, "auth-failed", r.getMessage());
                case TIMEOUT -> new ApiException(HttpStatus.GATEWAY_TIMEOUT, "ims-timeout", r.getMessage());
                case REJECTED -> new ApiException(HttpStatus.BAD_GATEWAY, "ims-rejected", r.getMessage());
            };
        }
        return new ApiException(HttpStatus.BAD_GATEWAY, "ims-rejected", String.valueOf(cause));
    }

    public Optional<BrowserSession> byToken(String token) { return store.byToken(token); }

    public boolean logout(String token) {
        Optional<BrowserSession> s = store.byToken(token);
        s.ifPresent(x -> end(x, "logout", true));
        return s.isPresent();
    }

    /** Ends the session's calls, drops its registration and closes its socket. */
    void end(BrowserSession s, String reason, boolean closeSocket) {
        if (!store.remove(s)) return;
        calls.endAll(s.token(), reason);
        if (store.ofUser(s.user()).isEmpty()) registration.unregister(s.user());
        if (closeSocket && s.socket() != null) {
            try {
                s.socket().close();
            } catch (Exception ignored) {
                // already closed
            }
        }
        log.info("{} session ended ({})", s.user(), reason);
    }

    private static String newToken() {
        byte[] b = new byte[24];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }
}

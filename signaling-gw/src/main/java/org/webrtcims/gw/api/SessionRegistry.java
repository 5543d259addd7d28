package org.webrtcims.gw.api;

import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.call.CallService;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.sip.RegistrationClient;
import org.webrtcims.gw.sip.RegistrationException;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * Browser sessions by token. Logging in registers the user with IMS (the registrar checks the password);
 * only a login that succeeded replaces the user's older session. Logging out, losing the WebSocket or the
 * token expiring ends the user's calls and de-registers. Logins are rate-limited ({@link LoginLimiter})
 * and the number of live sessions is capped.
 */
@Component
public class SessionRegistry {
    private static final Logger log = LoggerFactory.getLogger(SessionRegistry.class);
    private static final Pattern USER = Pattern.compile("[A-Za-z0-9._+-]{1,64}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private final RegistrationClient registration;
    private final CallService calls;
    private final SessionStore store;
    private final LoginLimiter limiter;
    private final LongSupplier clock;
    private final long ttlMillis;
    private final int maxSessions;
    /** Before every token (lab.api.token-prefix): tells a load balancer which gateway holds the session. */
    private final String tokenPrefix;
    private final ScheduledExecutorService sweeper;
    private volatile WebSocketEvents events;

    @Autowired
    public SessionRegistry(RegistrationClient registration, CallService calls, SessionStore store, GatewayProperties props) {
        this(registration, calls, store, props, System::currentTimeMillis, true);
    }

    /** For tests: a clock of its own and no background sweep ({@link #expireDue()} is called directly). */
    SessionRegistry(RegistrationClient registration, CallService calls, SessionStore store, GatewayProperties props,
                    LongSupplier clock, boolean sweep) {
        this.registration = registration;
        this.calls = calls;
        this.store = store;
        this.clock = clock;
        this.limiter = new LoginLimiter(props.getApi(), clock);
        this.ttlMillis = props.getApi().getTokenTtlSeconds() * 1000L;
        this.maxSessions = props.getApi().getMaxSessions();
        registration.onNetworkDeregistration(this::networkDeregistered);
        this.tokenPrefix = props.getApi().getTokenPrefix();
        if (sweep) {
            sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "session-expiry");
                t.setDaemon(true);
                return t;
            });
            sweeper.scheduleWithFixedDelay(this::expireDue, 1, 1, TimeUnit.SECONDS);
        } else {
            sweeper = null;
        }
    }

    @Autowired(required = false)
    void setEvents(WebSocketEvents events) { this.events = events; }

    /**
     * The network ended the user's registration (reg-event, RFC 3680): the browser is told why on its
     * WebSocket (`session-ended`, reason `network-deregistered`), then its calls end (BYE) and the session.
     */
    void networkDeregistered(String user, String event) {
        store.ofUser(user).ifPresent(s -> {
            WebSocketEvents ev = events;
            if (ev != null && s.socket() != null) {
                ev.send(s.socket(), java.util.Map.of("type", "session-ended", "reason", "network-deregistered",
                        "event", event, "message", "the IMS network de-registered " + user + " (reg-event: " + event + ")"));
            }
            calls.endAll(s.token(), "network-deregistered"); // BYE; `ended` reaches the browser while its session is live
            end(s, "network-deregistered", true);
        });
    }

    /**
     * A guest login (TS 24.371 §6, an identity from the pool): no credentials; the gateway registers a free pool
     * identity and the session's user is that identity's user part. 403 guest-login-off without a pool,
     * 503 pool-exhausted when every identity is in use.
     */
    public BrowserSession loginGuest(String source) {
        if (!registration.guestsEnabled()) {
            throw new ApiException(HttpStatus.FORBIDDEN, "guest-login-off", "guest logins are off: no identity pool is configured (lab.ims.credentials)");
        }
        limiter.attempt("guest", source);
        if (store.size() >= maxSessions) {
            throw new ApiException(HttpStatus.SERVICE_UNAVAILABLE, "too-many-sessions",
                    "the gateway holds its maximum of " + maxSessions + " sessions");
        }
        String user;
        try {
            user = registration.registerGuest().get();
        } catch (ExecutionException e) {
            throw mapRegistrationFailure(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException(HttpStatus.SERVICE_UNAVAILABLE, "ims-timeout", "interrupted");
        }
        BrowserSession s = new BrowserSession(newToken(), user, clock.getAsLong() + ttlMillis);
        store.add(s);
        log.info("guest logged in as {} and registered", user);
        return s;
    }

    /** `source`: the client's address, for the per-address login limits. */
    public BrowserSession login(String user, String password, String source) {
        if (user == null || !USER.matcher(user).matches()) {
            throw new ApiException(HttpStatus.BAD_REQUEST, "bad-message", "user must be 1-64 characters of A-Z a-z 0-9 . _ + -");
        }
        if (password == null || password.isEmpty()) {
            throw new ApiException(HttpStatus.BAD_REQUEST, "bad-message", "password is required");
        }
        limiter.attempt(user, source);
        Optional<BrowserSession> previous = store.ofUser(user);
        if (previous.isEmpty() && store.size() >= maxSessions) {
            throw new ApiException(HttpStatus.SERVICE_UNAVAILABLE, "too-many-sessions",
                    "the gateway holds its maximum of " + maxSessions + " sessions");
        }
        // The password is checked (REGISTER answered 2xx) before the user's live session is touched:
        // a failed login leaves that session, its calls and its registration as they were.
        try {
            registration.register(user, password).get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RegistrationException r && r.kind() == RegistrationException.Kind.AUTH_FAILED) {
                limiter.failed(user, source);
            }
            throw mapRegistrationFailure(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException(HttpStatus.SERVICE_UNAVAILABLE, "ims-timeout", "interrupted");
        }
        BrowserSession s = new BrowserSession(tokenPrefix + newToken(), user, clock.getAsLong() + ttlMillis);
        store.add(s); // first: ending the older session then sees a live one and keeps the registration
        previous.ifPresent(old -> end(old, "replaced", true));
        log.info("{} logged in and registered", user);
        return s;
    }

    private static ApiException mapRegistrationFailure(Throwable cause) {
        if (cause instanceof RegistrationException r) {
            return switch (r.kind()) {
                case AUTH_FAILED -> new ApiException(HttpStatus.UNAUTHORIZED, "auth-failed", r.getMessage());
                case TIMEOUT -> new ApiException(HttpStatus.GATEWAY_TIMEOUT, "ims-timeout", r.getMessage());
                case REJECTED -> new ApiException(HttpStatus.BAD_GATEWAY, "ims-rejected", r.getMessage());
                case POOL_EXHAUSTED -> new ApiException(HttpStatus.SERVICE_UNAVAILABLE, "pool-exhausted", r.getMessage());
            };
        }
        return new ApiException(HttpStatus.BAD_GATEWAY, "ims-rejected", String.valueOf(cause));
    }

    /** The live session of a token; an expired token has none. */
    public Optional<BrowserSession> byToken(String token) {
        return store.byToken(token).filter(s -> s.expiresAtMillis() > clock.getAsLong());
    }

    public boolean logout(String token) {
        Optional<BrowserSession> s = store.byToken(token);
        s.ifPresent(x -> end(x, "logout", true));
        return s.isPresent();
    }

    /** Ends every session whose token has expired (reason `expired`). */
    void expireDue() {
        long now = clock.getAsLong();
        for (BrowserSession s : store.all()) {
            if (s.expiresAtMillis() <= now) {
                try {
                    end(s, "expired", true);
                } catch (RuntimeException e) {
                    log.warn("ending the expired session of {} failed: {}", s.user(), e.toString());
                }
            }
        }
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

    @PreDestroy
    void stop() {
        if (sweeper != null) sweeper.shutdownNow();
    }

    private static String newToken() {
        byte[] b = new byte[24];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }
}

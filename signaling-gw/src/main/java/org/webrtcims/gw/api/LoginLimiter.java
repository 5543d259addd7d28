package org.webrtcims.gw.api;

import org.springframework.http.HttpStatus;
import org.webrtcims.gw.config.GatewayProperties;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Login rate limits over a sliding minute: attempts and failures per source address, failures per user
 * name. A refused login gets 429 `too-many-logins` before any REGISTER is sent.
 */
final class LoginLimiter {
    static final long WINDOW_MS = 60_000;
    private static final int MAX_KEYS = 10_000;

    private final int attemptsPerAddress;
    private final int failuresPerAddress;
    private final int failuresPerUser;
    private final LongSupplier clock;
    private final Map<String, Deque<Long>> attempts = new ConcurrentHashMap<>();
    private final Map<String, Deque<Long>> failures = new ConcurrentHashMap<>();

    LoginLimiter(GatewayProperties.Api api, LongSupplier clock) {
        this.attemptsPerAddress = api.getLoginAttemptsPerAddress();
        this.failuresPerAddress = api.getLoginFailuresPerAddress();
        this.failuresPerUser = api.getLoginFailuresPerUser();
        this.clock = clock;
    }

    /** Counts an attempt from `address` for `user`, or throws 429 when a limit is reached. */
    void attempt(String user, String address) {
        long now = clock.getAsLong();
        if (count(failures, "u:" + user, now) >= failuresPerUser) {
            throw refused("too many failed logins for user '" + user + "'; try again in a minute");
        }
        if (count(failures, "a:" + address, now) >= failuresPerAddress) {
            throw refused("too many failed logins from " + address + "; try again in a minute");
        }
        if (count(attempts, "a:" + address, now) >= attemptsPerAddress) {
            throw refused("too many logins from " + address + "; try again in a minute");
        }
        add(attempts, "a:" + address, now);
    }

    /** Records a failed login (the registrar refused the credentials). */
    void failed(String user, String address) {
        long now = clock.getAsLong();
        add(failures, "u:" + user, now);
        add(failures, "a:" + address, now);
    }

    private static ApiException refused(String message) {
        return new ApiException(HttpStatus.TOO_MANY_REQUESTS, "too-many-logins", message);
    }

    private static int count(Map<String, Deque<Long>> m, String key, long now) {
        Deque<Long> d = m.get(key);
        if (d == null) return 0;
        synchronized (d) {
            while (!d.isEmpty() && d.peekFirst() <= now - WINDOW_MS) d.pollFirst();
            return d.size();
        }
    }

    private static void add(Map<String, Deque<Long>> m, String key, long now) {
        if (m.size() > MAX_KEYS) m.entrySet().removeIf(e -> {
            synchronized (e.getValue()) {
                return e.getValue().isEmpty() || e.getValue().peekLast() <= now - WINDOW_MS;
            }
        });
        Deque<Long> d = m.computeIfAbsent(key, k -> new ArrayDeque<>());
        synchronized (d) {
            d.addLast(now);
        }
    }
}

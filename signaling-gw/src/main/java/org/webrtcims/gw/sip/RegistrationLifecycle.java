package org.webrtcims.gw.sip;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * The life of every user's registration, whatever its {@link RegisterAuth}: register (the user's live registration
 * stays in force until the new REGISTER got its 2xx), refresh at 80 % of the granted expiry, retry a failed refresh,
 * re-REGISTER all at once (the P-CSCF came back), de-register, and the end of a registration the network ended
 * (reg-event, {@link RegEvent}). A registration that ends releases its Contact user part and its
 * {@link RegisterAuth} (a pool identity goes back to the pool).
 */
final class RegistrationLifecycle {
    private static final Logger log = LoggerFactory.getLogger(RegistrationLifecycle.class);

    private final RegisterSender sender;
    private final ContactUsers contactUsers;
    private final RegEvent regEvent;
    private final boolean regEventOn;
    private final int registerExpires;
    private final ScheduledExecutorService timer;
    private final Map<String, Registration> byUser = new ConcurrentHashMap<>();
    private volatile BiConsumer<String, String> networkDeregistration = (user, reason) -> { };

    /** {@code regEvent}: subscribes each registration when {@code regEventOn}; {@code timer}: refreshes and retries. */
    RegistrationLifecycle(RegisterSender sender, ContactUsers contactUsers, RegEvent regEvent, boolean regEventOn,
                          int registerExpires, ScheduledExecutorService timer) {
        this.sender = sender;
        this.contactUsers = contactUsers;
        this.regEvent = regEvent;
        this.regEventOn = regEventOn;
        this.registerExpires = registerExpires;
        this.timer = timer;
    }

    /**
     * REGISTERs {@code user} with {@code auth}; completes when the registrar answered 2xx. A user with no live
     * registration gets a new random Contact user part ({@link ContactUsers}); a second session of a registered user
     * keeps the live one's, so the registrar updates that contact instead of keeping a second one that reaches no one.
     * A refused REGISTER changes nothing and releases {@code auth}.
     */
    CompletableFuture<Void> register(String user, RegisterAuth auth, String callId) {
        Registration live = byUser.get(user);
        boolean fresh = live == null;
        Registration reg = new Registration(user, auth, callId, fresh ? contactUsers.issue(user) : live.contactUser);
        return registerNow(reg).whenComplete((v, e) -> {
            if (e != null) { // a failed login keeps nothing
                reg.cancelRefresh();
                if (fresh && byUser.get(user) == null) contactUsers.release(reg.contactUser);
                auth.released();
                return;
            }
            if (!fresh) contactUsers.keep(reg.contactUser, user); // released meanwhile by a logout of the other session
            Registration old = byUser.put(user, reg);
            if (old != null && old != reg) {
                old.cancelRefresh();
                regEvent.forget(old.subscription());
            }
            if (regEventOn && reg.impu() != null) reg.subscription(regEvent.subscribe(user, reg.contactUser, reg.impu(), reg::flow));
        });
    }

    /** Removes the user's registration (Expires: 0); completes when answered or timed out. */
    CompletableFuture<Void> unregister(String user) {
        Registration reg = byUser.remove(user);
        if (reg == null) return CompletableFuture.completedFuture(null);
        reg.cancelRefresh();
        regEvent.forget(reg.subscription()); // the de-REGISTER's NOTIFY (terminated) is ours, not the network's
        contactUsers.release(reg.contactUser); // from now on an INVITE to it is one to an unknown user
        return sender.send(reg, 0).whenComplete((v, e) -> {
            reg.auth.released(); // a pool identity goes back once de-registered
            if (e != null) log.warn("de-REGISTER of {} failed: {}", user, RegisterSender.unwrap(e).getMessage());
        }).exceptionally(e -> null);
    }

    /** Called with (user, reason) when the network ended a user's registration; the registration is gone by then. */
    void onNetworkDeregistration(BiConsumer<String, String> listener) { this.networkDeregistration = listener; }

    /** A reg-event NOTIFY said the network ended the registration of {@code sub}'s user (RFC 3680). */
    void networkDeregistered(RegEvent.Subscription sub, String reason) {
        Registration reg = byUser.get(sub.user());
        if (reg == null || reg.subscription() != sub) return; // our own de-REGISTER, or an older registration
        if (!byUser.remove(sub.user(), reg)) return;
        reg.cancelRefresh();
        contactUsers.release(reg.contactUser);
        reg.flow("recv NOTIFY (registration terminated: " + reason + ")");
        reg.auth.released();
        log.info("the network de-registered {} ({}): {}", reg.user, reg.impu(), reason);
        networkDeregistration.accept(reg.user, reason);
    }

    /**
     * Re-REGISTERs every registration now (the P-CSCF answered again after a silence: a restarted registrar that
     * kept its bindings in memory has lost them). A REGISTER that fails is retried as a failed refresh is.
     * Returns how many were sent.
     */
    int refreshAll() {
        int n = 0;
        for (Registration reg : byUser.values()) {
            reg.cancelRefresh();
            refreshNow(reg);
            n++;
        }
        if (n > 0) log.info("re-REGISTERing {} users", n);
        return n;
    }

    /** A REGISTER with the configured expiry; on its 2xx the refresh is scheduled at 80 % of the granted time. */
    private CompletableFuture<Void> registerNow(Registration reg) {
        return sender.send(reg, registerExpires).thenRun(() -> {
            long delayMs = Math.max(1000L, reg.grantedExpires() * 800L);
            if (!timer.isShutdown()) reg.refreshAt(timer.schedule(() -> refreshNow(reg), delayMs, TimeUnit.MILLISECONDS));
        });
    }

    /**
     * A refresh of a live registration. When it fails (the registrar did not answer: down or restarting; or it
     * refused) the registration is kept and the refresh tried again after {@link #retryDelayMs}.
     */
    private void refreshNow(Registration reg) {
        if (byUser.get(reg.user) != reg) return;
        registerNow(reg).whenComplete((v, e) -> {
            if (e == null) return;
            long retry = retryDelayMs(reg.grantedExpires());
            log.warn("re-REGISTER of {} failed: {}; trying again in {} ms", reg.user, RegisterSender.unwrap(e).getMessage(), retry);
            reg.flow("refresh failed, retry in " + retry + " ms");
            if (byUser.get(reg.user) == reg && !timer.isShutdown()) {
                reg.refreshAt(timer.schedule(() -> refreshNow(reg), retry, TimeUnit.MILLISECONDS));
            }
        });
    }

    /** A failed refresh is tried again after a tenth of the granted expiry, between 1 and 30 s. */
    static long retryDelayMs(int grantedExpires) {
        return Math.max(1000L, Math.min(30000L, grantedExpires * 100L));
    }

    Optional<Registration> of(String user) { return Optional.ofNullable(byUser.get(user)); }

    int size() { return byUser.size(); }

    /** De-registers every user, waiting up to a second for each answer (the gateway is stopping). */
    void unregisterAll() {
        for (String user : byUser.keySet()) {
            try {
                unregister(user).get(1, TimeUnit.SECONDS);
            } catch (Exception ignored) {
                // shutting down: best effort
            }
        }
    }
}

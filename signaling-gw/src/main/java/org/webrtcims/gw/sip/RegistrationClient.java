package org.webrtcims.gw.sip;

import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.config.HostPort;
import org.webrtcims.gw.metrics.GatewayMetrics;
import org.webrtcims.gw.sip.aka.ImsCredentials;

import javax.sip.address.Address;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiConsumer;

/**
 * The gateway's registrations as the rest of the gateway sees them: logs browser users in to the IMS registrar and
 * out again, and answers what a registration holds (status, identities, Contact user part, Service-Route). Without a
 * credentials file the login password answers the registrar's digest challenge; with one ({@code
 * --lab.ims.credentials}, {@link ImsCredentials}) the web password is checked here and each user registers in the
 * TS 24.371 §6 scenario the file gives ({@link RegisterAuth}: {@link DigestAuth}, {@link AkaAuth}, {@link
 * TrustedNodeAuth}; guests borrow a {@link GuestPool} identity). The life of each registration (refresh, retry,
 * de-register) is {@link RegistrationLifecycle}'s; the reg-event subscription ({@link RegEvent}, with {@code
 * lab.ims.reg-event}) and the P-CSCF keepalive ({@link RegistrarKeepalive}) run beside it on the same timer.
 */
@Component
public class RegistrationClient {
    private static final Logger log = LoggerFactory.getLogger(RegistrationClient.class);

    private final SipUserAgent ua;
    private final SipRequests requests;
    private final GatewayProperties props;
    private final ImsCredentials credentials;
    private final GuestPool pool;
    private final RegistrationLifecycle lifecycle;
    private final RegistrarKeepalive keepalive;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "register-refresh");
        t.setDaemon(true);
        return t;
    });

    public RegistrationClient(SipUserAgent ua, SipRequests requests, GatewayProperties props) {
        this(ua, requests, props, GatewayMetrics.none(), new ContactUsers());
    }

    @Autowired
    public RegistrationClient(SipUserAgent ua, SipRequests requests, GatewayProperties props, GatewayMetrics metrics,
                              ContactUsers contactUsers) {
        this.ua = ua;
        this.requests = requests;
        this.props = props;
        String file = props.getIms().getCredentials();
        this.credentials = file == null || file.isBlank() ? ImsCredentials.none() : ImsCredentials.load(Path.of(file));
        if (credentials.enabled()) log.info("IMS credentials: {}", credentials);
        this.pool = new GuestPool(credentials.pool(), requests.domain());
        RegEvent regEvent = new RegEvent(ua, requests, props, timer);
        this.lifecycle = new RegistrationLifecycle(new RegisterSender(ua, requests, props, metrics), contactUsers,
                regEvent, props.getIms().isRegEvent(), props.getIms().getRegisterExpires(), timer);
        regEvent.onTerminated(lifecycle::networkDeregistered);
        metrics.registrations(lifecycle::size);
        metrics.sipDialogs(ua::dialogCount);
        if (props.getIms().isRegEvent()) ua.setNotifyHandler(regEvent::onNotify);
        this.keepalive = new RegistrarKeepalive(ua, requests, props.getIms().getKeepaliveMs(),
                timer, () -> timer.execute(lifecycle::refreshAll)); // off the SIP thread that got the answer
        keepalive.start();
    }

    /**
     * Called with (user, reason) when the network ended a user's registration (reg-event NOTIFY, RFC 3680: the
     * registration or our contact terminated, e.g. reason "deactivated"); the registration is already gone.
     */
    public void onNetworkDeregistration(BiConsumer<String, String> listener) {
        lifecycle.onNetworkDeregistration(listener);
    }

    /** Guest logins are possible: the credentials file lists pool identities. */
    public boolean guestsEnabled() { return pool.enabled(); }

    /**
     * A guest login (TS 24.371 §6, a public user identity from a pool): takes the first free pool identity,
     * registers it by trusted node authentication and completes with the browser user name it gives (the
     * IMPU's user part). No free identity: RegistrationException POOL_EXHAUSTED; not enabled: REJECTED.
     */
    public CompletableFuture<String> registerGuest() {
        if (!guestsEnabled()) {
            return CompletableFuture.failedFuture(new RegistrationException(RegistrationException.Kind.REJECTED, 0,
                    "guest logins are off: the IMS credentials file lists no pool identities"));
        }
        Optional<PoolIdentityAuth> identity = pool.take();
        if (identity.isEmpty()) {
            return CompletableFuture.failedFuture(new RegistrationException(RegistrationException.Kind.POOL_EXHAUSTED, 0,
                    "all " + pool.size() + " public user identities of the guest pool are in use"));
        }
        String user = identity.get().subscriber().login();
        return lifecycle.register(user, identity.get(), ua.newCallId()).thenApply(v -> user);
    }

    /**
     * REGISTERs the user; completes when the registrar answered 2xx. The user's current registration (a live
     * session's) stays in force until then: a REGISTER the registrar refuses (a wrong password) changes nothing.
     */
    public CompletableFuture<Void> register(String user, String password) {
        ImsCredentials.Subscriber sub;
        try {
            sub = checkLogin(user, password);
        } catch (RegistrationException e) {
            return CompletableFuture.failedFuture(e);
        }
        return lifecycle.register(user, auth(user, password, sub), ua.newCallId());
    }

    /** The login's scenario: the credentials file's kind (AKA, trusted node), else digest. */
    private RegisterAuth auth(String user, String password, ImsCredentials.Subscriber sub) {
        if (sub != null && sub.kind() == ImsCredentials.Kind.AKA) return new AkaAuth(sub, requests.domain());
        if (sub != null && sub.kind() == ImsCredentials.Kind.TNA) return new TrustedNodeAuth(sub, requests.domain());
        return new DigestAuth(user, password, sub, ua);
    }

    /**
     * With a credentials file: the user's entry when it is listed with this web password, else
     * RegistrationException AUTH_FAILED (nothing is sent to IMS). Without one: null (the registrar decides).
     */
    public ImsCredentials.Subscriber checkLogin(String user, String password) {
        if (!credentials.enabled()) return null;
        return credentials.of(user).filter(s -> s.passwordMatches(password)).orElseThrow(() ->
                new RegistrationException(RegistrationException.Kind.AUTH_FAILED, 0, "unknown user or wrong password for " + user));
    }

    /** Removes the user's registration (Expires: 0); completes when answered or timed out. */
    public CompletableFuture<Void> unregister(String user) { return lifecycle.unregister(user); }

    /**
     * What the registrar granted the user, how often the registration was refreshed since login, how it
     * authenticates ("digest", "AKAv1-MD5" or "trusted-node"), its registration scenario (TS 24.371 §6: "ims"
     * for digest/AKA, "web" for a web-authenticated user, "pool" for a guest), its IMPI and IMPU (when the
     * credentials file names them, else null), the reg-event subscription's state (null when none), the SIP flow so far,
     * the registered public user identities (the default first; {@link RegisteredIdentities}) and the registered
     * Contact URI (its user part random per registration, {@link ContactUsers}).
     */
    public record Status(int grantedExpires, int refreshes, long registeredAtMillis, String auth, String scenario,
                         String impi, String impu, String regEvent, List<String> sipFlow,
                         List<String> identities, String contact) { }

    public Optional<Status> status(String user) {
        return lifecycle.of(user).map(r -> {
            RegEvent.Subscription sub = r.subscription();
            RegisteredIdentities ids = r.identities();
            return new Status(r.grantedExpires(), r.refreshes(), r.registeredAtMillis(), r.auth.mechanism(), r.auth.scenario(),
                    r.auth.impi(), r.auth.impu(), sub == null ? null : sub.state(), r.flow(),
                    ids == null ? List.of() : ids.all(), contactUri(r.contactUser));
        });
    }

    /** The Contact URI a registration registers (without its transport parameter). */
    private String contactUri(String contactUser) {
        return "sip:" + contactUser + "@" + new HostPort(props.getSip().getHost(), props.getSip().getPort());
    }

    /** The user's registered identities (empty when the user is not registered). */
    public Optional<RegisteredIdentities> identities(String user) {
        Registration r = lifecycle.of(user).orElse(null); // no lambda: the call set-up path (docs/architecture.md "Starting the gateway")
        return r == null ? Optional.empty() : Optional.ofNullable(r.identities());
    }

    /**
     * The identity an MO request of {@code user} goes out as (From, P-Preferred-Identity; TS 24.229 §5.1.2A.1.1):
     * the default public user identity, or {@code requested} when it is one of the registered set. Throws
     * {@link RegisteredIdentities.NotRegistered} for another one, and when the user has no registration.
     */
    public String callerIdentity(String user, String requested) {
        RegisteredIdentities ids = identities(user).orElse(null);
        if (ids == null) throw new RegisteredIdentities.NotRegistered(user + " has no IMS registration to call from");
        return ids.choose(requested);
    }

    /**
     * The user part of the user's registered Contact ({@link ContactUsers}), for the Contact of the user's dialogs
     * (TS 24.229 §5.1.2A.1.1: the contact address the UE registered); empty when the user is not registered.
     */
    public Optional<String> contactUser(String user) {
        Registration r = lifecycle.of(user).orElse(null); // no lambda: the call set-up path (docs/architecture.md "Starting the gateway")
        return r == null ? Optional.empty() : Optional.ofNullable(r.contactUser);
    }

    /** The Service-Route of the user's registration (empty when none was given). */
    public List<Address> serviceRoute(String user) {
        return lifecycle.of(user).map(Registration::serviceRoute).orElse(List.of());
    }

    /** Unanswered keepalives in a row (0 when the P-CSCF answers or keepalives are off). */
    public int keepaliveMissed() { return keepalive.missedInARow(); }

    /** Re-REGISTERs every user now (as when the P-CSCF answers again after a silence); returns how many. */
    int refreshAll() { return lifecycle.refreshAll(); }

    @PreDestroy
    public void shutdown() {
        lifecycle.unregisterAll();
        timer.shutdownNow();
    }
}

package org.webrtcims.gw.sip;

import org.webrtcims.gw.metrics.GatewayMetrics;
import gov.nist.javax.sip.clientauthutils.AccountManager;
import gov.nist.javax.sip.clientauthutils.AuthenticationHelper;
import gov.nist.javax.sip.clientauthutils.UserCredentials;
import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.sip.aka.AkaDigest;
import org.webrtcims.gw.sip.aka.ImsCredentials;
import org.webrtcims.gw.sip.aka.Usim;

import javax.sip.ClientTransaction;
import javax.sip.ResponseEvent;
import javax.sip.address.Address;
import javax.sip.header.CSeqHeader;
import javax.sip.header.ExpiresHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.WWWAuthenticateHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.util.Map;
import java.util.concurrent.*;

/**
 * Registers browser users with the IMS registrar, refreshes the binding before it expires and removes it on
 * logout. Without a credentials file the login password answers the registrar's digest challenge; with one
 * (`--lab.ims.credentials`, {@link ImsCredentials}) the web password is checked here and each user registers
 * as the file says: digest, or IMS-AKA (AKAv1-MD5, RFC 3310; Milenage USIM in {@link Usim}) with its IMPI and
 * IMPU, answering a stale SQN with AUTS (resynchronisation) and registering again, or by trusted node
 * authentication (web authentication and the guest pool of TS 24.371 §6: the gateway as WAF/eP-CSCF authenticated
 * the user, the REGISTER carries {@code integrity-protected="auth-done"} and is not challenged). With
 * {@code lab.ims.reg-event} it subscribes to each user's registration state (RFC 3680, {@link RegEvent}) and
 * reports a de-registration by the network to {@link #onNetworkDeregistration}.
 */
@Component
public class RegistrationClient {
    private static final Logger log = LoggerFactory.getLogger(RegistrationClient.class);

    private final SipUserAgent ua;
    private final SipRequests requests;
    private final GatewayProperties props;
    private final AuthenticationHelper auth;
    private final ImsCredentials credentials;
    private final GatewayMetrics metrics;
    private final ContactUsers contactUsers;
    /** At most this many 401s are answered per REGISTER (a resync costs two). */
    private static final int MAX_CHALLENGES = 3;
    private static final int MAX_FLOW = 64;
    private final Map<String, Binding> bindings = new ConcurrentHashMap<>();
    /** By REGISTER Call-ID, also while a de-REGISTER is still being challenged (its user is gone from bindings). */
    private final Map<String, Binding> byCallId = new ConcurrentHashMap<>();
    /** Pool identities (IMPU) held by a guest session, or being registered for one. */
    private final java.util.Set<String> poolInUse = ConcurrentHashMap.newKeySet();
    private final RegEvent regEvent;
    private volatile java.util.function.BiConsumer<String, String> networkDeregistration = (user, reason) -> { };
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "register-refresh");
        t.setDaemon(true);
        return t;
    });

    /** One user's registration: a Call-ID and CSeq kept across refreshes (RFC 3261 §10.2.4). */
    private static final class Binding {
        final String user;
        final String password;
        /** From the credentials file; null without one. */
        final ImsCredentials.Subscriber sub;
        final String callId;
        /** The user part of the registered Contact ({@link ContactUsers}): random, kept across refreshes. */
        final String contactUser;
        final String fromTag = SipIds.tag();
        long cseq = 1;
        ScheduledFuture<?> refresh;
        volatile int grantedExpires;
        volatile int refreshes;
        volatile long registeredAtMillis;
        /** RFC 3608: the route the registrar told the UE to preload on its initial requests. */
        volatile java.util.List<javax.sip.address.Address> serviceRoute = java.util.List.of();
        /** The public user identities of the last 200 (P-Associated-URI, TS 24.229 §5.1.1.2.1); null before it. */
        volatile RegisteredIdentities identities;
        /** What this binding's REGISTERs sent and received, in order (e.g. "recv 401 (AKAv1-MD5)"). */
        final java.util.List<String> flow = new java.util.concurrent.CopyOnWriteArrayList<>();

        Binding(String user, String password, ImsCredentials.Subscriber sub, String callId, String contactUser) {
            this.user = user;
            this.contactUser = contactUser;
            this.password = password;
            this.sub = sub;
            this.callId = callId;
        }

        boolean aka() { return sub != null && sub.kind() == ImsCredentials.Kind.AKA; }

        /** Trusted node authentication: a web-authenticated user or a guest with a pool identity. */
        boolean tna() { return sub != null && sub.kind() == ImsCredentials.Kind.TNA; }

        boolean pooled() { return tna() && sub.webPassword() == null; }

        /** The IMPU and IMPI the REGISTER names (AKA, TNA, digest toward an outside IMS), else null. */
        String impu() { return sub != null ? sub.impu() : null; }

        String impi() { return sub != null ? sub.impi() : null; }

        /** The reg-event subscription of this binding (RFC 3680), once sent. */
        volatile RegEvent.Subscription subscription;

        void flow(String item) { if (flow.size() < MAX_FLOW) flow.add(item); }
    }

    public RegistrationClient(SipUserAgent ua, SipRequests requests, GatewayProperties props) {
        this(ua, requests, props, GatewayMetrics.none(), new ContactUsers());
    }

    @org.springframework.beans.factory.annotation.Autowired
    public RegistrationClient(SipUserAgent ua, SipRequests requests, GatewayProperties props, GatewayMetrics metrics,
                              ContactUsers contactUsers) {
        this.metrics = metrics;
        this.contactUsers = contactUsers;
        metrics.registrations(bindings::size);
        metrics.sipDialogs(ua::dialogCount);
        this.ua = ua;
        this.requests = requests;
        this.props = props;
        this.auth = ua.authenticationHelper(accountManager());
        String file = props.getIms().getCredentials();
        this.credentials = file == null || file.isBlank() ? ImsCredentials.none() : ImsCredentials.load(java.nio.file.Path.of(file));
        if (credentials.enabled()) log.info("IMS credentials: {}", credentials);
        this.regEvent = new RegEvent(ua, requests, props, timer, this::networkDeregistered);
        if (props.getIms().isRegEvent()) ua.setNotifyHandler(regEvent::onNotify);
        this.keepalive = new RegistrarKeepalive(ua, requests, props.getIms().getKeepaliveMs(),
                timer, () -> timer.execute(this::refreshAll)); // off the SIP thread that got the answer
        keepalive.start();
    }

    private final RegistrarKeepalive keepalive;

    /**
     * Re-REGISTERs every binding now (the P-CSCF answered again after a silence: a restarted registrar that kept
     * its bindings in memory has lost them; the REGISTER is challenged and answered as at login). A binding whose
     * REGISTER fails is retried as a failed refresh is. Returns how many were sent.
     */
    int refreshAll() {
        int n = 0;
        for (Binding b : bindings.values()) {
            if (b.refresh != null) b.refresh.cancel(false);
            refreshNow(b);
            n++;
        }
        if (n > 0) log.info("re-REGISTERing {} users", n);
        return n;
    }

    /**
     * Called with (user, reason) when the network ended a user's registration (reg-event NOTIFY, RFC 3680:
     * the registration or our contact terminated, e.g. reason "deactivated"); the binding is already gone.
     */
    public void onNetworkDeregistration(java.util.function.BiConsumer<String, String> listener) {
        this.networkDeregistration = listener;
    }

    private void networkDeregistered(RegEvent.Subscription sub, String reason) {
        Binding b = bindings.get(sub.user());
        if (b == null || b.subscription != sub) return; // our own de-REGISTER, or an older binding
        if (!bindings.remove(sub.user(), b)) return;
        if (b.refresh != null) b.refresh.cancel(false);
        byCallId.remove(b.callId);
        contactUsers.release(b.contactUser);
        b.flow("recv NOTIFY (registration terminated: " + reason + ")");
        if (b.pooled()) poolInUse.remove(b.sub.impu());
        log.info("the network de-registered {} ({}): {}", b.user, b.impu(), reason);
        networkDeregistration.accept(b.user, reason);
    }

    /** Guest logins are possible: the credentials file lists pool identities. */
    public boolean guestsEnabled() { return !credentials.pool().isEmpty(); }

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
        ImsCredentials.Subscriber sub = null;
        synchronized (poolInUse) {
            for (ImsCredentials.Subscriber p : credentials.pool()) {
                if (poolInUse.add(p.impu())) {
                    sub = p;
                    break;
                }
            }
        }
        if (sub == null) {
            return CompletableFuture.failedFuture(new RegistrationException(RegistrationException.Kind.POOL_EXHAUSTED, 0,
                    "all " + credentials.pool().size() + " public user identities of the guest pool are in use"));
        }
        ImsCredentials.Subscriber taken = sub;
        Binding b = new Binding(sub.login(), "", sub, ua.newCallId(), contactUsers.issue(sub.login()));
        byCallId.put(b.callId, b);
        return send(b, props.getIms().getRegisterExpires()).handle((v, e) -> {
            if (e != null) {
                byCallId.remove(b.callId);
                contactUsers.release(b.contactUser);
                if (b.refresh != null) b.refresh.cancel(false);
                poolInUse.remove(taken.impu());
                throw e instanceof CompletionException ce ? ce : new CompletionException(e);
            }
            bindings.put(b.user, b);
            subscribeRegEvent(b);
            return b.user;
        });
    }

    private void subscribeRegEvent(Binding b) {
        if (!props.getIms().isRegEvent() || b.impu() == null) return;
        b.subscription = regEvent.subscribe(b.user, b.contactUser, b.impu(), b::flow);
    }

    private AccountManager accountManager() {
        return (ClientTransaction ct, String realm) -> {
            String user = ((javax.sip.address.SipURI) ((FromHeader) ct.getRequest().getHeader(FromHeader.NAME))
                    .getAddress().getURI()).getUser();
            String callId = ((javax.sip.header.CallIdHeader) ct.getRequest().getHeader(javax.sip.header.CallIdHeader.NAME)).getCallId();
            Binding b = byCallId.get(callId);
            String password = b == null ? "" : b.password;
            // digest with an IMS identity (an outside IMS): the private identity authenticates
            String name = b != null && b.sub != null && b.sub.impi() != null ? b.sub.impi() : user;
            return new UserCredentials() {
                public String getUserName() { return name; }
                public String getPassword() { return password; }
                public String getSipDomain() { return realm; }
            };
        };
    }

    /**
     * REGISTERs the user; completes when the registrar answered 2xx. The user's current binding (a live
     * session's) stays in force until then: a REGISTER the registrar refuses (a wrong password) changes nothing.
     * A user with no live binding gets a new random Contact user part ({@link ContactUsers}); a login of a user
     * who is registered already (a second browser session) keeps the binding's one, so the registrar updates that
     * contact instead of keeping a second one that no longer reaches anyone.
     */
    public CompletableFuture<Void> register(String user, String password) {
        ImsCredentials.Subscriber sub;
        try {
            sub = checkLogin(user, password);
        } catch (RegistrationException e) {
            return CompletableFuture.failedFuture(e);
        }
        Binding live = bindings.get(user);
        boolean fresh = live == null;
        Binding b = new Binding(user, sub != null && sub.digestPassword() != null ? sub.digestPassword() : password, sub,
                ua.newCallId(), fresh ? contactUsers.issue(user) : live.contactUser);
        byCallId.put(b.callId, b);
        return send(b, props.getIms().getRegisterExpires()).whenComplete((v, e) -> {
            if (e != null) {
                byCallId.remove(b.callId); // a failed login keeps nothing
                if (b.refresh != null) b.refresh.cancel(false);
                if (fresh && bindings.get(user) == null) contactUsers.release(b.contactUser);
                return;
            }
            if (!fresh) contactUsers.keep(b.contactUser, user); // released meanwhile by a logout of the other session
            Binding old = bindings.put(user, b);
            if (old != null && old != b) {
                if (old.refresh != null) old.refresh.cancel(false);
                byCallId.remove(old.callId);
                regEvent.forget(old.subscription);
            }
            subscribeRegEvent(b);
        });
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

    /** Removes the user's binding (Expires: 0); completes when answered or timed out. */
    public CompletableFuture<Void> unregister(String user) {
        Binding b = bindings.remove(user);
        if (b == null) return CompletableFuture.completedFuture(null);
        if (b.refresh != null) b.refresh.cancel(false);
        regEvent.forget(b.subscription); // the de-REGISTER's NOTIFY (terminated) is ours, not the network's
        contactUsers.release(b.contactUser); // from now on an INVITE to it is one to an unknown user
        return send(b, 0).whenComplete((v, e) -> {
            byCallId.remove(b.callId);
            if (b.pooled()) poolInUse.remove(b.sub.impu()); // back to the pool once de-registered
            if (e != null) log.warn("de-REGISTER of {} failed: {}", user, unwrap(e).getMessage());
        }).exceptionally(e -> null);
    }

    /**
     * What the registrar granted the user, how often the binding was refreshed since login, how it
     * authenticates ("digest", "AKAv1-MD5" or "trusted-node"), its registration scenario (TS 24.371 §6: "ims"
     * for digest/AKA, "web" for a web-authenticated user, "pool" for a guest), its IMPI and IMPU (when the
     * credentials file names them, else null), the reg-event subscription's state (null when none), the SIP flow so far
     * the registered public user identities (the default first; {@link RegisteredIdentities}) and the registered
     * Contact URI (its user part random per registration, {@link ContactUsers}).
     */
    public record Status(int grantedExpires, int refreshes, long registeredAtMillis, String auth, String scenario,
                         String impi, String impu, String regEvent, java.util.List<String> sipFlow,
                         java.util.List<String> identities, String contact) { }

    public java.util.Optional<Status> status(String user) {
        Binding b = bindings.get(user);
        if (b == null) return java.util.Optional.empty();
        String auth = b.aka() ? AkaDigest.ALGORITHM : b.tna() ? "trusted-node" : "digest";
        String scenario = b.pooled() ? "pool" : b.tna() ? "web" : "ims";
        RegEvent.Subscription sub = b.subscription;
        return java.util.Optional.of(new Status(b.grantedExpires, b.refreshes, b.registeredAtMillis, auth, scenario,
                b.impi(), b.impu(), sub == null ? null : sub.state(), java.util.List.copyOf(b.flow),
                b.identities == null ? java.util.List.of() : b.identities.all(), contactUri(b)));
    }

    /** TS 24.229 §5.4.1.1 / TS 33.203: a trusted node names the IMPI and says it authenticated the user itself. */
    static String trustedNodeHeader(String impi, String realm, String uri) {
        return "Digest username=\"" + impi + "\", realm=\"" + realm + "\", nonce=\"\", uri=\"" + uri
                + "\", response=\"\", integrity-protected=\"auth-done\"";
    }

    /** The Contact URI the binding registers (without its transport parameter). */
    private String contactUri(Binding b) {
        return "sip:" + b.contactUser + "@" + new org.webrtcims.gw.config.HostPort(props.getSip().getHost(), props.getSip().getPort());
    }

    private String registerUri() { return "sip:" + requests.domain(); }

    /**
     * {@link #sendOnce}, and when the P-CSCF did not answer it (timeout, transport error, 503) another P-CSCF target of
     * lab.ims.proxy's SRV set (RFC 3263 §4.3, Pcscf#failover) gets the REGISTER, until one answers or none is left.
     */
    private CompletableFuture<Void> send(Binding b, int expires) {
        Pcscf pcscf = requests.pcscf();
        int tries = Math.max(1, pcscf.targets().size());
        return sendVia(b, expires, pcscf, tries);
    }

    private CompletableFuture<Void> sendVia(Binding b, int expires, Pcscf pcscf, int triesLeft) {
        PcscfResolver.Target target = pcscf.targets().isEmpty() ? null : pcscf.current();
        return sendOnce(b, expires).exceptionallyCompose(e -> {
            Throwable cause = unwrap(e);
            String why = cause instanceof RegistrationException re ? pcscfFault(re) : null;
            if (why == null || target == null || triesLeft <= 1 || !pcscf.failover(target, why)) {
                return CompletableFuture.failedFuture(cause);
            }
            b.flow("P-CSCF " + target.hostPort() + " " + why + ": REGISTER again via " + pcscf.current().hostPort());
            return sendVia(b, expires, pcscf, triesLeft - 1);
        });
    }

    /** Why the P-CSCF itself failed (RFC 3263 §4.3: try the next target), or null when the answer was a real one. */
    private static String pcscfFault(RegistrationException e) {
        if (e.kind() == RegistrationException.Kind.TIMEOUT) return "did not answer the REGISTER";
        if (e.kind() == RegistrationException.Kind.REJECTED && e.sipCode() == 503) return "answered 503";
        if (e.kind() == RegistrationException.Kind.REJECTED && e.sipCode() == 0 && e.getMessage().startsWith("cannot send REGISTER")) {
            return "could not be reached (" + e.getMessage().substring("cannot send REGISTER: ".length()) + ")";
        }
        return null;
    }

    private CompletableFuture<Void> sendOnce(Binding b, int expires) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        String kind = expires == 0 ? "deregister" : b.registeredAtMillis != 0 ? "refresh" : "initial";
        done.whenComplete((v, e) -> metrics.registerDone(kind, e == null));
        // TS 24.229 §5.1.1.2.1: an IMS-AKA UE names its IMPI in the first REGISTER (empty nonce and response)
        transmit(new Handler(b, expires, done, kind),
                b.aka() ? AkaDigest.initialHeader(b.sub.impi(), requests.domain(), registerUri())
                        : b.tna() ? trustedNodeHeader(b.sub.impi(), requests.domain(), registerUri()) : null,
                b.tna() ? " (auth-done)" : "");
        return done.orTimeout(props.getIms().getRegisterTimeoutMs(), TimeUnit.MILLISECONDS)
                .exceptionallyCompose(e -> CompletableFuture.failedFuture(e instanceof TimeoutException
                        ? new RegistrationException(RegistrationException.Kind.TIMEOUT, 408, "the registrar did not answer")
                        : unwrap(e)));
    }

    /** Sends one REGISTER of the handler's binding, with AUTHORIZATION (a header value) when not null. */
    private void transmit(Handler h, String authorization, String note) {
        Binding b = h.b;
        try {
            Address aor = b.impu() != null ? ua.addresses().createAddress(b.impu()) : requests.aor(b.user);
            Request reg;
            synchronized (b) {
                reg = requests.create(Request.REGISTER, ua.addresses().createSipURI(null, requests.domain()),
                        aor, b.fromTag, aor, b.callId, b.cseq++, b.contactUser);
            }
            reg.addHeader(ua.headers().createExpiresHeader(h.expires));
            reg.addHeader(ua.headers().createSupportedHeader("path")); // TS 24.229 §5.1.1.2
            if (authorization != null) reg.addHeader(ua.headers().createHeader("Authorization", authorization));
            // in the flow before the send: the stack can hand the answer to its own thread before send() returns
            b.flow("sent REGISTER" + (h.expires == 0 ? " (Expires: 0)" : "") + note);
            ua.send(reg, h);
            metrics.registerSent(h.kind);
        } catch (Exception e) {
            b.flow("REGISTER not sent: " + e.getMessage());
            h.done.completeExceptionally(new RegistrationException(RegistrationException.Kind.REJECTED, 0,
                    "cannot send REGISTER: " + e.getMessage()));
        }
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    private final class Handler implements ResponseHandler {
        final Binding b;
        final int expires;
        final CompletableFuture<Void> done;
        final String kind;
        int challenges;
        boolean sentResponse;  // the last REGISTER carried an AKA RES
        boolean sentAuts;      // a resync was already asked for

        Handler(Binding b, int expires, CompletableFuture<Void> done, String kind) {
            this.kind = kind;
            this.b = b;
            this.expires = expires;
            this.done = done;
        }

        @Override
        public void onResponse(ResponseEvent event) {
            Response r = event.getResponse();
            int code = r.getStatusCode();
            if (code < 200) return;
            synchronized (b) {
                b.cseq = Math.max(b.cseq, ((CSeqHeader) r.getHeader(CSeqHeader.NAME)).getSeqNumber() + 1);
            }
            WWWAuthenticateHeader challenge = (WWWAuthenticateHeader) r.getHeader(WWWAuthenticateHeader.NAME);
            b.flow("recv " + code + (code == 401 && challenge != null && challenge.getAlgorithm() != null
                    ? " (" + challenge.getAlgorithm() + ")" : ""));
            if (code == 401 && b.aka()) {
                answerAka(challenge);
                return;
            }
            if (b.tna() && (code == 401 || code == 403 || code == 407)) {
                // the core did not take the gateway as a trusted node for this identity (or the HSS assigns AKA)
                fail(RegistrationException.Kind.REJECTED, code, "the core refused trusted node authentication of "
                        + b.sub.impu() + ": " + code + " " + r.getReasonPhrase());
                return;
            }
            if (code == 401 || code == 407) {
                Request sent = event.getClientTransaction().getRequest();
                if (sent.getHeader("Authorization") != null || sent.getHeader("Proxy-Authorization") != null) {
                    done.completeExceptionally(new RegistrationException(RegistrationException.Kind.AUTH_FAILED, code,
                            "the registrar rejected the credentials of " + b.user));
                    return;
                }
                try {
                    ClientTransaction retry = auth.handleChallenge(r, event.getClientTransaction(), ua.provider(), 5);
                    b.flow("sent REGISTER (digest response)"); // before the send, as in transmit
                    ua.sendPrepared(retry, this);
                    metrics.registerSent(kind);
                } catch (Exception e) {
                    b.flow("REGISTER not sent: " + e.getMessage());
                    done.completeExceptionally(new RegistrationException(RegistrationException.Kind.REJECTED, code,
                            "cannot answer the digest challenge: " + e.getMessage()));
                }
                return;
            }
            if (code == 403) {
                done.completeExceptionally(new RegistrationException(RegistrationException.Kind.AUTH_FAILED, code,
                        "the registrar refused " + b.user + " (403)"));
                return;
            }
            if (code >= 300) {
                done.completeExceptionally(new RegistrationException(RegistrationException.Kind.REJECTED, code,
                        "REGISTER answered " + code + " " + r.getReasonPhrase()));
                return;
            }
            if (expires > 0) {
                if (b.registeredAtMillis == 0) log.info("{} registered with contact {}", b.user, contactUri(b));
                if (b.registeredAtMillis != 0) b.refreshes++;
                b.registeredAtMillis = System.currentTimeMillis();
                b.grantedExpires = grantedExpires(r, b.contactUser);
                b.serviceRoute = serviceRoute(r);
                b.identities = identities(b, r);
                scheduleRefresh(b, b.grantedExpires);
            }
            done.complete(null);
        }

        /** RFC 3310 / TS 33.203: verify AUTN, answer with RES, or with AUTS when the SQN is not fresh. */
        private void answerAka(WWWAuthenticateHeader w) {
            if (w == null || !AkaDigest.ALGORITHM.equalsIgnoreCase(w.getAlgorithm())) {
                fail(RegistrationException.Kind.REJECTED, "the registrar's 401 does not ask for " + AkaDigest.ALGORITHM
                        + " (algorithm=" + (w == null ? "none" : w.getAlgorithm()) + ") but " + b.user + " has AKA credentials");
                return;
            }
            if (sentResponse) {
                fail(RegistrationException.Kind.AUTH_FAILED, "the registrar challenged the AKA response of " + b.sub.impi() + " again");
                return;
            }
            if (++challenges > MAX_CHALLENGES) {
                fail(RegistrationException.Kind.REJECTED, "too many AKA challenges for " + b.sub.impi());
                return;
            }
            AkaDigest.Challenge c;
            try {
                c = AkaDigest.Challenge.ofNonce(w.getNonce());
            } catch (IllegalArgumentException e) {
                fail(RegistrationException.Kind.REJECTED, "bad AKA challenge: " + e.getMessage());
                return;
            }
            Usim.Result result = b.sub.usim().authenticate(c.rand(), c.autn());
            String realm = w.getRealm() == null ? requests.domain() : w.getRealm();
            if (result instanceof Usim.Success ok) {
                log.info("AKA challenge for {}: AUTN verified (SQN {}), answering with RES", b.sub.impi(), Long.toHexString(ok.sqn()));
                sentResponse = true;
                transmit(this, AkaDigest.header(AkaDigest.answer(b.sub.impi(), realm, w.getNonce(), registerUri(),
                        Request.REGISTER, w.getQop(), w.getOpaque(), ok.res(), null)), " (AKA response)");
            } else if (result instanceof Usim.SyncFailure sync) {
                if (sentAuts) {
                    fail(RegistrationException.Kind.AUTH_FAILED, "the network's SQN for " + b.sub.impi() + " is still not fresh after a resynchronisation");
                    return;
                }
                log.info("AKA challenge for {}: SQN {} not fresh (SQN_MS {}), resynchronising with AUTS", b.sub.impi(),
                        Long.toHexString(sync.sqn()), Long.toHexString(sync.sqnMs()));
                sentAuts = true;
                transmit(this, AkaDigest.header(AkaDigest.answer(b.sub.impi(), realm, w.getNonce(), registerUri(),
                        Request.REGISTER, w.getQop(), w.getOpaque(), null, sync.auts())), " (AUTS resync)");
            } else {
                fail(RegistrationException.Kind.AUTH_FAILED,
                        "the network failed authentication for " + b.sub.impi() + ": AUTN's MAC-A does not match (wrong K/OPc?)");
            }
        }

        private void fail(RegistrationException.Kind kind, String message) {
            fail(kind, 401, message);
        }

        private void fail(RegistrationException.Kind kind, int code, String message) {
            log.warn("REGISTER of {}: {}", b.user, message);
            done.completeExceptionally(new RegistrationException(kind, code, message));
        }

        @Override
        public void onTimeout() {
            done.completeExceptionally(new RegistrationException(RegistrationException.Kind.TIMEOUT, 408,
                    "the registrar did not answer"));
        }
    }

    /**
     * The registration's identities from its 200: P-Associated-URI, else what the gateway registered. An IMPU
     * of the credentials file the core did not associate is noted in the flow (and not offered: the P-CSCF
     * would not assert it).
     */
    private RegisteredIdentities identities(Binding b, Response r) {
        java.util.List<String> ours = b.sub != null && !b.sub.impus().isEmpty() ? b.sub.impus()
                : java.util.List.of("sip:" + b.user + "@" + requests.domain());
        RegisteredIdentities ids = RegisteredIdentities.of(r, ours);
        RegisteredIdentities before = b.identities;
        if (before == null || !before.all().equals(ids.all())) {
            log.info("{} registered identities: {}", b.user, ids);
            if (ids.fromCore()) {
                for (String impu : ours) {
                    if (!ids.contains(impu)) {
                        log.warn("{}: IMPU {} of the credentials file is not among the registration's identities {}", b.user, impu, ids);
                    }
                }
            }
        }
        return ids;
    }

    /** The user's registered identities (empty when the user is not registered). */
    public java.util.Optional<RegisteredIdentities> identities(String user) {
        Binding b = bindings.get(user);
        return b == null || b.identities == null ? java.util.Optional.empty() : java.util.Optional.of(b.identities);
    }

    /**
     * The identity an MO request of {@code user} goes out as (From, P-Preferred-Identity; TS 24.229 §5.1.2A.1.1):
     * the default public user identity, or {@code requested} when it is one of the registered set. Throws
     * {@link RegisteredIdentities.NotRegistered} for another one, and when the user has no registration.
     */
    public String callerIdentity(String user, String requested) {
        RegisteredIdentities ids = identities(user).orElseThrow(() ->
                new RegisteredIdentities.NotRegistered(user + " has no IMS registration to call from"));
        return ids.choose(requested);
    }

    private java.util.List<javax.sip.address.Address> serviceRoute(Response r) {
        java.util.List<javax.sip.address.Address> route = new java.util.ArrayList<>();
        java.util.ListIterator<?> it = r.getHeaders("Service-Route");
        while (it != null && it.hasNext()) {
            String h = it.next().toString().trim();
            String value = h.regionMatches(true, 0, "Service-Route:", 0, 14) ? h.substring(14).trim() : h;
            try {
                route.add(ua.addresses().createAddress(value));
            } catch (java.text.ParseException e) {
                log.warn("unusable Service-Route '{}' ignored", value);
            }
        }
        return java.util.List.copyOf(route);
    }

    /**
     * The user part of the user's registered Contact ({@link ContactUsers}), for the Contact of the user's dialogs
     * (TS 24.229 §5.1.2A.1.1: the contact address the UE registered); empty when the user is not registered.
     */
    public java.util.Optional<String> contactUser(String user) {
        Binding b = bindings.get(user);
        return b == null ? java.util.Optional.empty() : java.util.Optional.of(b.contactUser);
    }

    /** The Service-Route of the user's registration (empty when none was given). */
    public java.util.List<javax.sip.address.Address> serviceRoute(String user) {
        Binding b = bindings.get(user);
        return b == null ? java.util.List.of() : b.serviceRoute;
    }

    /** The expiry granted to our own contact (the 200 lists every contact of the user, RFC 3261 §10.3). */
    private int grantedExpires(Response r, String contactUser) {
        String user = contactUser;
        String ours;
        try {
            ours = ((javax.sip.address.SipURI) requests.contact(user).getAddress().getURI()).getHost() + ":" + props.getSip().getPort();
        } catch (java.text.ParseException e) {
            ours = "";
        }
        java.util.ListIterator<?> it = r.getHeaders(javax.sip.header.ContactHeader.NAME);
        while (it != null && it.hasNext()) {
            javax.sip.header.ContactHeader c = (javax.sip.header.ContactHeader) it.next();
            if (c.getAddress().getURI() instanceof javax.sip.address.SipURI u && user.equals(u.getUser())
                    && ours.equals(u.getHost() + ":" + u.getPort()) && c.getExpires() > 0) {
                return c.getExpires();
            }
        }
        ExpiresHeader e = (ExpiresHeader) r.getHeader(ExpiresHeader.NAME);
        return e != null && e.getExpires() > 0 ? e.getExpires() : props.getIms().getRegisterExpires();
    }

    private void scheduleRefresh(Binding b, int granted) {
        long delayMs = Math.max(1000L, granted * 800L); // refresh at 80 % of the granted time
        b.refresh = timer.schedule(() -> refreshNow(b), delayMs, TimeUnit.MILLISECONDS);
    }

    /**
     * A refresh REGISTER of a live binding. When it fails (the registrar did not answer: down or restarting; or it
     * refused) the binding is kept and the refresh is tried again after {@link #retryDelayMs} — before, one failed
     * refresh left the user unregistered until logout.
     */
    private void refreshNow(Binding b) {
        if (bindings.get(b.user) != b) return;
        send(b, props.getIms().getRegisterExpires()).whenComplete((v, e) -> {
            if (e == null) return;
            long retry = retryDelayMs(b.grantedExpires);
            log.warn("re-REGISTER of {} failed: {}; trying again in {} ms", b.user, unwrap(e).getMessage(), retry);
            b.flow("refresh failed, retry in " + retry + " ms");
            if (bindings.get(b.user) == b && !timer.isShutdown()) {
                b.refresh = timer.schedule(() -> refreshNow(b), retry, TimeUnit.MILLISECONDS);
            }
        });
    }

    /** A failed refresh is tried again after a tenth of the granted expiry, between 1 and 30 s. */
    static long retryDelayMs(int grantedExpires) {
        return Math.max(1000L, Math.min(30000L, grantedExpires * 100L));
    }

    /** Unanswered keepalives in a row (0 when the P-CSCF answers or keepalives are off). */
    public int keepaliveMissed() { return keepalive.missedInARow(); }

    @PreDestroy
    public void shutdown() {
        for (String user : bindings.keySet()) {
            try {
                unregister(user).get(1, TimeUnit.SECONDS);
            } catch (Exception ignored) {
                // shutting down: best effort
            }
        }
        timer.shutdownNow();
    }
}

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
 * IMPU, answering a stale SQN with AUTS (resynchronisation) and registering again.
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
    /** At most this many 401s are answered per REGISTER (a resync costs two). */
    private static final int MAX_CHALLENGES = 3;
    private static final int MAX_FLOW = 64;
    private final Map<String, Binding> bindings = new ConcurrentHashMap<>();
    /** By REGISTER Call-ID, also while a de-REGISTER is still being challenged (its user is gone from bindings). */
    private final Map<String, Binding> byCallId = new ConcurrentHashMap<>();
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
        final String fromTag = SipIds.tag();
        long cseq = 1;
        ScheduledFuture<?> refresh;
        volatile int grantedExpires;
        volatile int refreshes;
        volatile long registeredAtMillis;
        /** RFC 3608: the route the registrar told the UE to preload on its initial requests. */
        volatile java.util.List<javax.sip.address.Address> serviceRoute = java.util.List.of();
        /** What this binding's REGISTERs sent and received, in order (e.g. "recv 401 (AKAv1-MD5)"). */
        final java.util.List<String> flow = new java.util.concurrent.CopyOnWriteArrayList<>();

        Binding(String user, String password, ImsCredentials.Subscriber sub, String callId) {
            this.user = user;
            this.password = password;
            this.sub = sub;
            this.callId = callId;
        }

        boolean aka() { return sub != null && sub.kind() == ImsCredentials.Kind.AKA; }

        void flow(String item) { if (flow.size() < MAX_FLOW) flow.add(item); }
    }

    public RegistrationClient(SipUserAgent ua, SipRequests requests, GatewayProperties props) {
        this(ua, requests, props, GatewayMetrics.none());
    }

    @org.springframework.beans.factory.annotation.Autowired
    public RegistrationClient(SipUserAgent ua, SipRequests requests, GatewayProperties props, GatewayMetrics metrics) {
        this.metrics = metrics;
        metrics.registrations(bindings::size);
        metrics.sipDialogs(ua::dialogCount);
        this.ua = ua;
        this.requests = requests;
        this.props = props;
        this.auth = ua.authenticationHelper(accountManager());
        String file = props.getIms().getCredentials();
        this.credentials = file == null || file.isBlank() ? ImsCredentials.none() : ImsCredentials.load(java.nio.file.Path.of(file));
        if (credentials.enabled()) log.info("IMS credentials: {}", credentials);
    }

    private AccountManager accountManager() {
        return (ClientTransaction ct, String realm) -> {
            String user = ((javax.sip.address.SipURI) ((FromHeader) ct.getRequest().getHeader(FromHeader.NAME))
                    .getAddress().getURI()).getUser();
            String callId = ((javax.sip.header.CallIdHeader) ct.getRequest().getHeader(javax.sip.header.CallIdHeader.NAME)).getCallId();
            Binding b = byCallId.get(callId);
            String password = b == null ? "" : b.password;
            return new UserCredentials() {
                public String getUserName() { return user; }
                public String getPassword() { return password; }
                public String getSipDomain() { return realm; }
            };
        };
    }

    /**
     * REGISTERs the user; completes when the registrar answered 2xx. The user's current binding (a live
     * session's) stays in force until then: a REGISTER the registrar refuses (a wrong password) changes nothing.
     */
    public CompletableFuture<Void> register(String user, String password) {
        ImsCredentials.Subscriber sub;
        try {
            sub = checkLogin(user, password);
        } catch (RegistrationException e) {
            return CompletableFuture.failedFuture(e);
        }
        Binding b = new Binding(user, password, sub, ua.newCallId());
        byCallId.put(b.callId, b);
        return send(b, props.getIms().getRegisterExpires()).whenComplete((v, e) -> {
            if (e != null) {
                byCallId.remove(b.callId); // a failed login keeps nothing
                if (b.refresh != null) b.refresh.cancel(false);
                return;
            }
            Binding old = bindings.put(user, b);
            if (old != null && old != b) {
                if (old.refresh != null) old.refresh.cancel(false);
                byCallId.remove(old.callId);
            }
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
        return send(b, 0).whenComplete((v, e) -> {
            byCallId.remove(b.callId);
            if (e != null) log.warn("de-REGISTER of {} failed: {}", user, unwrap(e).getMessage());
        }).exceptionally(e -> null);
    }

    /**
     * What the registrar granted the user, how often the binding was refreshed since login, how it
     * authenticates ("digest" or "AKAv1-MD5"), its IMPI and IMPU (AKA only, else null) and the SIP flow of its
     * REGISTERs so far.
     */
    public record Status(int grantedExpires, int refreshes, long registeredAtMillis, String auth, String impi,
                         String impu, java.util.List<String> sipFlow) { }

    public java.util.Optional<Status> status(String user) {
        Binding b = bindings.get(user);
        return b == null ? java.util.Optional.empty()
                : java.util.Optional.of(new Status(b.grantedExpires, b.refreshes, b.registeredAtMillis,
                        b.aka() ? AkaDigest.ALGORITHM : "digest", b.aka() ? b.sub.impi() : null,
                        b.aka() ? b.sub.impu() : null, java.util.List.copyOf(b.flow)));
    }

    private String registerUri() { return "sip:" + requests.domain(); }

    private CompletableFuture<Void> send(Binding b, int expires) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        String kind = expires == 0 ? "deregister" : b.registeredAtMillis != 0 ? "refresh" : "initial";
        done.whenComplete((v, e) -> metrics.registerDone(kind, e == null));
        // TS 24.229 §5.1.1.2.1: an IMS-AKA UE names its IMPI in the first REGISTER (empty nonce and response)
        transmit(new Handler(b, expires, done, kind),
                b.aka() ? AkaDigest.initialHeader(b.sub.impi(), requests.domain(), registerUri()) : null, "");
        return done.orTimeout(props.getIms().getRegisterTimeoutMs(), TimeUnit.MILLISECONDS)
                .exceptionallyCompose(e -> CompletableFuture.failedFuture(e instanceof TimeoutException
                        ? new RegistrationException(RegistrationException.Kind.TIMEOUT, 408, "the registrar did not answer")
                        : unwrap(e)));
    }

    /** Sends one REGISTER of the handler's binding, with AUTHORIZATION (a header value) when not null. */
    private void transmit(Handler h, String authorization, String note) {
        Binding b = h.b;
        try {
            Address aor = b.aka() ? ua.addresses().createAddress(b.sub.impu()) : requests.aor(b.user);
            Request reg;
            synchronized (b) {
                reg = requests.create(Request.REGISTER, ua.addresses().createSipURI(null, requests.domain()),
                        aor, b.fromTag, aor, b.callId, b.cseq++, b.user);
            }
            reg.addHeader(ua.headers().createExpiresHeader(h.expires));
            reg.addHeader(ua.headers().createSupportedHeader("path")); // TS 24.229 §5.1.1.2
            if (authorization != null) reg.addHeader(ua.headers().createHeader("Authorization", authorization));
            ua.send(reg, h);
            metrics.registerSent(h.kind);
            b.flow("sent REGISTER" + (h.expires == 0 ? " (Expires: 0)" : "") + note);
        } catch (Exception e) {
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
            if (code == 401 || code == 407) {
                Request sent = event.getClientTransaction().getRequest();
                if (sent.getHeader("Authorization") != null || sent.getHeader("Proxy-Authorization") != null) {
                    done.completeExceptionally(new RegistrationException(RegistrationException.Kind.AUTH_FAILED, code,
                            "the registrar rejected the credentials of " + b.user));
                    return;
                }
                try {
                    ClientTransaction retry = auth.handleChallenge(r, event.getClientTransaction(), ua.provider(), 5);
                    ua.sendPrepared(retry, this);
                    metrics.registerSent(kind);
                    b.flow("sent REGISTER (digest response)");
                } catch (Exception e) {
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
                if (b.registeredAtMillis != 0) b.refreshes++;
                b.registeredAtMillis = System.currentTimeMillis();
                b.grantedExpires = grantedExpires(r, b.user);
                b.serviceRoute = serviceRoute(r);
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
            log.warn("REGISTER of {}: {}", b.user, message);
            done.completeExceptionally(new RegistrationException(kind, 401, message));
        }

        @Override
        public void onTimeout() {
            done.completeExceptionally(new RegistrationException(RegistrationException.Kind.TIMEOUT, 408,
                    "the registrar did not answer"));
        }
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

    /** The Service-Route of the user's registration (empty when none was given). */
    public java.util.List<javax.sip.address.Address> serviceRoute(String user) {
        Binding b = bindings.get(user);
        return b == null ? java.util.List.of() : b.serviceRoute;
    }

    /** The expiry granted to our own contact (the 200 lists every contact of the user, RFC 3261 §10.3). */
    private int grantedExpires(Response r, String user) {
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
        b.refresh = timer.schedule(() -> {
            if (bindings.get(b.user) != b) return;
            send(b, props.getIms().getRegisterExpires()).whenComplete((v, e) -> {
                if (e != null) log.warn("re-REGISTER of {} failed: {}", b.user, unwrap(e).getMessage());
            });
        }, delayMs, TimeUnit.MILLISECONDS);
    }

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

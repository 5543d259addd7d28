package org.webrtcims.gw.sip;

import gov.nist.javax.sip.clientauthutils.AccountManager;
import gov.nist.javax.sip.clientauthutils.AuthenticationHelper;
import gov.nist.javax.sip.clientauthutils.UserCredentials;
import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.config.GatewayProperties;

import javax.sip.ClientTransaction;
import javax.sip.ResponseEvent;
import javax.sip.address.Address;
import javax.sip.header.CSeqHeader;
import javax.sip.header.ExpiresHeader;
import javax.sip.header.FromHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.util.Map;
import java.util.concurrent.*;

/**
 * Registers browser users with the IMS registrar (digest on challenge), refreshes the binding before it
 * expires and removes it on logout.
 */
@Component
public class RegistrationClient {
    private static final Logger log = LoggerFactory.getLogger(RegistrationClient.class);

    private final SipUserAgent ua;
    private final SipRequests requests;
    private final GatewayProperties props;
    private final AuthenticationHelper auth;
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
        final String callId;
        final String fromTag = SipIds.tag();
        long cseq = 1;
        ScheduledFuture<?> refresh;
        volatile int grantedExpires;
        volatile int refreshes;
        volatile long registeredAtMillis;
        /** RFC 3608: the route the registrar told the UE to preload on its initial requests. */
        volatile java.util.List<javax.sip.address.Address> serviceRoute = java.util.List.of();

        Binding(String user, String password, String callId) {
            this.user = user;
            this.password = password;
            this.callId = callId;
        }
    }

    public RegistrationClient(SipUserAgent ua, SipRequests requests, GatewayProperties props) {
        this.ua = ua;
        this.requests = requests;
        this.props = props;
        this.auth = ua.authenticationHelper(accountManager());
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
        Binding b = new Binding(user, password, ua.newCallId());
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

    /** What the registrar granted the user, and how often the binding was refreshed since login. */
    public record Status(int grantedExpires, int refreshes, long registeredAtMillis) { }

    public java.util.Optional<Status> status(String user) {
        Binding b = bindings.get(user);
        return b == null ? java.util.Optional.empty()
                : java.util.Optional.of(new Status(b.grantedExpires, b.refreshes, b.registeredAtMillis));
    }

    private CompletableFuture<Void> send(Binding b, int expires) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            Address aor = requests.aor(b.user);
            Request reg;
            synchronized (b) {
                reg = requests.create(Request.REGISTER, ua.addresses().createSipURI(null, requests.domain()),
                        aor, b.fromTag, aor, b.callId, b.cseq++, b.user);
            }
            reg.addHeader(ua.headers().createExpiresHeader(expires));
            reg.addHeader(ua.headers().createSupportedHeader("path")); // TS 24.229 §5.1.1.2
            ua.send(reg, new Handler(b, expires, done));
        } catch (Exception e) {
            done.completeExceptionally(new RegistrationException(RegistrationException.Kind.REJECTED, 0,
                    "cannot send REGISTER: " + e.getMessage()));
        }
        return done.orTimeout(props.getIms().getRegisterTimeoutMs(), TimeUnit.MILLISECONDS)
                .exceptionallyCompose(e -> CompletableFuture.failedFuture(e instanceof TimeoutException
                        ? new RegistrationException(RegistrationException.Kind.TIMEOUT, 408, "the registrar did not answer")
                        : unwrap(e)));
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    private final class Handler implements ResponseHandler {
        final Binding b;
        final int expires;
        final CompletableFuture<Void> done;

        Handler(Binding b, int expires, CompletableFuture<Void> done) {
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

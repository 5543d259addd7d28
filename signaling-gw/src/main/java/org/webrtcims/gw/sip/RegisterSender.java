package org.webrtcims.gw.sip;

import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.metrics.GatewayMetrics;

import javax.sip.address.SipURI;
import javax.sip.message.Response;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Sends a {@link Registration}'s REGISTER ({@link RegisterTransaction}) within lab.ims.register-timeout-ms, and when
 * the P-CSCF did not answer it (timeout, transport error, 503) to the next P-CSCF target of lab.ims.proxy's SRV set
 * (RFC 3263 §4.3, {@link Pcscf#failover}), until one answers or none is left.
 */
final class RegisterSender {
    private final SipUserAgent ua;
    private final SipRequests requests;
    private final GatewayProperties props;
    private final GatewayMetrics metrics;

    RegisterSender(SipUserAgent ua, SipRequests requests, GatewayProperties props, GatewayMetrics metrics) {
        this.ua = ua;
        this.requests = requests;
        this.props = props;
        this.metrics = metrics;
    }

    /** REGISTERs with this expiry (0: de-REGISTER); completes when a P-CSCF's registrar answered 2xx. */
    CompletableFuture<Void> send(Registration reg, int expires) {
        Pcscf pcscf = requests.pcscf();
        return sendVia(reg, expires, pcscf, Math.max(1, pcscf.targets().size()));
    }

    private CompletableFuture<Void> sendVia(Registration reg, int expires, Pcscf pcscf, int triesLeft) {
        PcscfResolver.Target target = pcscf.targets().isEmpty() ? null : pcscf.current();
        return sendOnce(reg, expires).exceptionallyCompose(e -> {
            Throwable cause = unwrap(e);
            String why = cause instanceof RegistrationException re ? pcscfFault(re) : null;
            if (why == null || target == null || triesLeft <= 1 || !pcscf.failover(target, why)) {
                return CompletableFuture.failedFuture(cause);
            }
            reg.flow("P-CSCF " + target.hostPort() + " " + why + ": REGISTER again via " + pcscf.current().hostPort());
            return sendVia(reg, expires, pcscf, triesLeft - 1);
        });
    }

    /** Why the P-CSCF itself failed (RFC 3263 §4.3: try the next target), or null when the answer was a real one. */
    static String pcscfFault(RegistrationException e) {
        if (e.kind() == RegistrationException.Kind.TIMEOUT) return "did not answer the REGISTER";
        if (e.kind() == RegistrationException.Kind.REJECTED && e.sipCode() == 503) return "answered 503";
        if (e.kind() == RegistrationException.Kind.REJECTED && e.sipCode() == 0 && e.getMessage().startsWith("cannot send REGISTER")) {
            return "could not be reached (" + e.getMessage().substring("cannot send REGISTER: ".length()) + ")";
        }
        return null;
    }

    private CompletableFuture<Void> sendOnce(Registration reg, int expires) {
        return new RegisterTransaction(ua, requests, metrics, reg, expires, r -> ok(reg, r)).start()
                .orTimeout(props.getIms().getRegisterTimeoutMs(), TimeUnit.MILLISECONDS)
                .exceptionallyCompose(e -> CompletableFuture.failedFuture(e instanceof TimeoutException
                        ? new RegistrationException(RegistrationException.Kind.TIMEOUT, 408, "the registrar did not answer")
                        : unwrap(e)));
    }

    private RegisterOk ok(Registration reg, Response r) {
        List<String> ours = !reg.auth.impus().isEmpty() ? reg.auth.impus() : List.of("sip:" + reg.user + "@" + requests.domain());
        return RegisterOk.of(r, reg.user, reg.contactUser, ourHostPort(reg), props.getIms().getRegisterExpires(), ours,
                reg.identities(), ua.addresses());
    }

    /** The host:port of the registration's Contact, as the registrar lists it back. */
    private String ourHostPort(Registration reg) {
        try {
            return ((SipURI) requests.contact(reg.contactUser).getAddress().getURI()).getHost() + ":" + props.getSip().getPort();
        } catch (java.text.ParseException e) {
            return "";
        }
    }

    static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }
}

package org.webrtcims.gw.sip;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.webrtcims.gw.metrics.GatewayMetrics;

import javax.sip.ResponseEvent;
import javax.sip.address.Address;
import javax.sip.header.CSeqHeader;
import javax.sip.header.WWWAuthenticateHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * One REGISTER of a {@link Registration} to its final outcome: the first REGISTER (Expires, Supported: path, the
 * Authorization its {@link RegisterAuth.Exchange} gives), the challenges the exchange answers with further
 * REGISTERs in the same Call-ID, then the final answer — a 2xx registers ({@link RegisterOk}), a 403 is a refusal
 * of the user (AUTH_FAILED), any other failure REJECTED, no answer TIMEOUT. Each step goes to the registration's
 * SIP flow before it is sent (the stack can hand the answer to its own thread before the send returns).
 */
final class RegisterTransaction implements ResponseHandler {
    private static final Logger log = LoggerFactory.getLogger(RegisterTransaction.class);

    private final SipUserAgent ua;
    private final SipRequests requests;
    private final GatewayMetrics metrics;
    private final Registration reg;
    private final int expires;
    /** initial, refresh or deregister (the metrics' kind). */
    private final String kind;
    private final RegisterAuth.Exchange exchange;
    private final Function<Response, RegisterOk> okReader;
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    /** A first REGISTER's stale contacts of a dead gateway, removed in the same request (ContactHandover). */
    private final List<String> stale;

    /** {@code okReader}: reads what a 2xx granted (only called for a REGISTER with an expiry). */
    RegisterTransaction(SipUserAgent ua, SipRequests requests, GatewayMetrics metrics, Registration reg, int expires,
                        Function<Response, RegisterOk> okReader) {
        this.ua = ua;
        this.requests = requests;
        this.metrics = metrics;
        this.reg = reg;
        this.expires = expires;
        this.kind = expires == 0 ? "deregister" : reg.everRegistered() ? "refresh" : "initial";
        this.exchange = reg.auth.exchange();
        this.okReader = okReader;
        ContactHandover h = requests.handover();
        this.stale = h != null && "initial".equals(kind) ? h.staleContacts(reg.user) : List.of();
        done.whenComplete((v, e) -> metrics.registerDone(kind, e == null));
    }

    /** Sends the first REGISTER; completes when the registrar's final answer settled it (no timeout of its own). */
    CompletableFuture<Void> start() {
        transmit(exchange.first());
        return done;
    }

    /** Sends one REGISTER of the registration with the step's Authorization (when not null). */
    private void transmit(RegisterAuth.Send step) {
        try {
            Address aor = reg.impu() != null ? ua.addresses().createAddress(reg.impu()) : requests.aor(reg.user);
            Request r = requests.newRequest(Request.REGISTER, ua.addresses().createSipURI(null, requests.domain()),
                    aor, reg.fromTag, aor, reg.callId, reg.nextCseq(), reg.contactUser);
            r.addHeader(ua.headers().createExpiresHeader(expires));
            for (String c : stale) {
                javax.sip.header.ContactHeader gone = ua.headers().createContactHeader(ua.addresses().createAddress("<" + c + ">"));
                gone.setExpires(0);
                r.addHeader(gone);
            }
            r.addHeader(ua.headers().createSupportedHeader("path")); // TS 24.229 §5.1.1.2
            if (step.authorization() != null) r.addHeader(ua.headers().createHeader("Authorization", step.authorization()));
            reg.flow("sent REGISTER" + (expires == 0 ? " (Expires: 0)" : "") + step.note());
            ua.sendRequest(r, this);
            metrics.registerSent(kind);
        } catch (Exception e) {
            reg.flow("REGISTER not sent: " + e.getMessage());
            done.completeExceptionally(new RegistrationException(RegistrationException.Kind.REJECTED, 0,
                    "cannot send REGISTER: " + e.getMessage()));
        }
    }

    private void sendPrepared(RegisterAuth.SendPrepared step, int code) {
        try {
            reg.flow("sent REGISTER" + step.note());
            ua.sendPrepared(step.transaction(), this);
            metrics.registerSent(kind);
        } catch (Exception e) {
            refuse(new RegisterAuth.Refuse(RegistrationException.Kind.REJECTED, code, "cannot send REGISTER: " + e.getMessage(),
                    "REGISTER not sent: " + e.getMessage()));
        }
    }

    @Override
    public void onResponse(ResponseEvent event) {
        Response r = event.getResponse();
        int code = r.getStatusCode();
        if (code < 200) return;
        reg.answered(((CSeqHeader) r.getHeader(CSeqHeader.NAME)).getSeqNumber());
        WWWAuthenticateHeader challenge = (WWWAuthenticateHeader) r.getHeader(WWWAuthenticateHeader.NAME);
        reg.flow("recv " + code + (code == 401 && challenge != null && challenge.getAlgorithm() != null
                ? " (" + challenge.getAlgorithm() + ")" : ""));
        if (code == Response.UNAUTHORIZED || code == Response.FORBIDDEN || code == Response.PROXY_AUTHENTICATION_REQUIRED) {
            RegisterAuth.Step next = exchange.challenged(r, event.getClientTransaction());
            if (next instanceof RegisterAuth.Send send) {
                transmit(send);
                return;
            }
            if (next instanceof RegisterAuth.SendPrepared prepared) {
                sendPrepared(prepared, code);
                return;
            }
            if (next instanceof RegisterAuth.Refuse refuse) {
                refuse(refuse);
                return;
            }
        }
        if (code == Response.FORBIDDEN) {
            done.completeExceptionally(new RegistrationException(RegistrationException.Kind.AUTH_FAILED, code,
                    "the registrar refused " + reg.user + " (403)"));
        } else if (code >= 300) {
            done.completeExceptionally(new RegistrationException(RegistrationException.Kind.REJECTED, code,
                    "REGISTER answered " + code + " " + r.getReasonPhrase()));
        } else {
            if (expires > 0) {
                RegisterOk ok = okReader.apply(r);
                if (!reg.everRegistered()) log.info("{} registered with contact user {}", reg.user, reg.contactUser);
                reg.registered(ok);
            }
            ContactHandover h = requests.handover();
            if (h != null) {
                try {
                    if (expires > 0) h.registered(reg.user, requests.contact(reg.contactUser).getAddress().getURI().toString(), stale);
                    else h.unregistered(reg.user);
                } catch (Exception e) {
                    log.warn("REGISTER of {}: the failover store was not told: {}", reg.user, e.toString());
                }
            }
            done.complete(null);
        }
    }

    private void refuse(RegisterAuth.Refuse refuse) {
        if (refuse.flowNote() != null) reg.flow(refuse.flowNote());
        log.warn("REGISTER of {}: {}", reg.user, refuse.message());
        done.completeExceptionally(new RegistrationException(refuse.kind(), refuse.code(), refuse.message()));
    }

    @Override
    public void onTimeout() {
        done.completeExceptionally(new RegistrationException(RegistrationException.Kind.TIMEOUT, 408, "the registrar did not answer"));
    }
}

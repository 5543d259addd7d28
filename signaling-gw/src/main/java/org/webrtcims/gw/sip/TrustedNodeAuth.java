package org.webrtcims.gw.sip;

import org.webrtcims.gw.sip.aka.ImsCredentials;

import javax.sip.ClientTransaction;
import javax.sip.message.Response;

/**
 * Web authentication (TS 24.371 §6, TS 23.228 Annex U): the gateway, as WAF and eP-CSCF, checked the user's web
 * password itself and REGISTERs the mapped IMPI/IMPU by trusted node authentication (TS 24.229 §5.4.1.1, TS 33.203):
 * {@code integrity-protected="auth-done"}, not challenged. A 401, 403 or 407 means the core did not take the gateway
 * as a trusted node for this identity (or the HSS assigns AKA to it): the registration fails.
 */
class TrustedNodeAuth implements RegisterAuth, RegisterAuth.Exchange {
    private final ImsCredentials.Subscriber sub;
    private final String domain;

    /** {@code domain}: the IMS domain (the realm and the REGISTER's Request-URI). */
    TrustedNodeAuth(ImsCredentials.Subscriber sub, String domain) {
        if (sub.kind() != ImsCredentials.Kind.TNA) throw new IllegalArgumentException(sub.impu() + " is not a trusted node identity");
        this.sub = sub;
        this.domain = domain;
    }

    /** TS 24.229 §5.4.1.1 / TS 33.203: a trusted node names the IMPI and says it authenticated the user itself. */
    static String header(String impi, String realm, String uri) {
        return "Digest username=\"" + impi + "\", realm=\"" + realm + "\", nonce=\"\", uri=\"" + uri
                + "\", response=\"\", integrity-protected=\"auth-done\"";
    }

    @Override public ImsCredentials.Subscriber subscriber() { return sub; }
    @Override public String mechanism() { return "trusted-node"; }
    @Override public String scenario() { return "web"; }
    @Override public Exchange exchange() { return this; } // no challenge to count

    @Override
    public Send first() { return new Send(header(sub.impi(), domain, "sip:" + domain), " (auth-done)"); }

    @Override
    public Step challenged(Response response, ClientTransaction ct) {
        int code = response.getStatusCode();
        return new Refuse(RegistrationException.Kind.REJECTED, code, "the core refused trusted node authentication of "
                + sub.impu() + ": " + code + " " + response.getReasonPhrase());
    }
}

package org.webrtcims.gw.sip;

import gov.nist.javax.sip.clientauthutils.AuthenticationHelper;
import gov.nist.javax.sip.clientauthutils.UserCredentials;
import org.webrtcims.gw.sip.aka.ImsCredentials;

import javax.sip.ClientTransaction;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * IMS authentication by SIP digest (TS 24.371 §6; RFC 3261 §22): the first REGISTER carries no credentials, a 401
 * or 407 is answered once by JAIN-SIP's {@link AuthenticationHelper} with the user's name (the IMPI toward an
 * outside IMS, else the login) and password (the credentials file's SIP password, else the login password); a
 * challenge to the answer means the registrar rejected the credentials.
 */
final class DigestAuth implements RegisterAuth, RegisterAuth.Exchange {
    /** How long the helper keeps the Authorization for the Call-ID (seconds). */
    private static final int CACHE_SECONDS = 5;

    private final ImsCredentials.Subscriber sub;
    private final String login;
    private final SipUserAgent ua;
    private final AuthenticationHelper helper;

    /** {@code sub}: the credentials file's entry (null without one); {@code password}: the login's. */
    DigestAuth(String login, String password, ImsCredentials.Subscriber sub, SipUserAgent ua) {
        this.sub = sub;
        this.login = login;
        this.ua = ua;
        String name = sub != null && sub.impi() != null ? sub.impi() : login;
        String secret = sub != null && sub.digestPassword() != null ? sub.digestPassword() : password;
        this.helper = ua.authenticationHelper((ct, realm) -> new UserCredentials() {
            public String getUserName() { return name; }
            public String getPassword() { return secret; }
            public String getSipDomain() { return realm; }
        });
    }

    @Override public ImsCredentials.Subscriber subscriber() { return sub; }
    @Override public String mechanism() { return "digest"; }
    @Override public String scenario() { return "ims"; }
    @Override public Exchange exchange() { return this; } // nothing to count: the sent request tells

    @Override
    public Send first() { return new Send(null, ""); }

    @Override
    public Step challenged(Response response, ClientTransaction ct) {
        int code = response.getStatusCode();
        if (code != Response.UNAUTHORIZED && code != Response.PROXY_AUTHENTICATION_REQUIRED) return PASS;
        Request sent = ct.getRequest();
        if (sent.getHeader("Authorization") != null || sent.getHeader("Proxy-Authorization") != null) {
            return new Refuse(RegistrationException.Kind.AUTH_FAILED, code, "the registrar rejected the credentials of " + login);
        }
        try {
            return new SendPrepared(helper.handleChallenge(response, ct, ua.provider(), CACHE_SECONDS), " (digest response)");
        } catch (Exception e) {
            return new Refuse(RegistrationException.Kind.REJECTED, code, "cannot answer the digest challenge: " + e.getMessage(),
                    "REGISTER not sent: " + e.getMessage());
        }
    }
}

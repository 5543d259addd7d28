package org.webrtcims.gw.sip;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.webrtcims.gw.sip.aka.AkaDigest;
import org.webrtcims.gw.sip.aka.ImsCredentials;
import org.webrtcims.gw.sip.aka.Usim;

import javax.sip.ClientTransaction;
import javax.sip.header.WWWAuthenticateHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * IMS authentication by IMS-AKA (TS 24.371 §6; AKAv1-MD5, RFC 3310 / TS 33.203) with the Milenage USIM of the
 * credentials file ({@link Usim}): the first REGISTER names the IMPI (TS 24.229 §5.1.1.2.1: empty nonce and
 * response); a 401 is answered with RES once AUTN is verified, or with AUTS when the network's SQN is not fresh
 * (resynchronisation, then the next 401 is answered with RES). A network that fails authentication, a second
 * sync failure, a challenge to the RES or a challenge of another algorithm ends the registration.
 */
final class AkaAuth implements RegisterAuth {
    private static final Logger log = LoggerFactory.getLogger(AkaAuth.class);
    /** At most this many 401s are answered per REGISTER transaction (a resync costs two). */
    static final int MAX_CHALLENGES = 3;

    private final ImsCredentials.Subscriber sub;
    private final String domain;

    /** {@code domain}: the IMS domain (the realm when a 401 names none, and the REGISTER's Request-URI). */
    AkaAuth(ImsCredentials.Subscriber sub, String domain) {
        if (sub.kind() != ImsCredentials.Kind.AKA) throw new IllegalArgumentException(sub.login() + " has no AKA credentials");
        this.sub = sub;
        this.domain = domain;
    }

    @Override public ImsCredentials.Subscriber subscriber() { return sub; }
    @Override public String mechanism() { return AkaDigest.ALGORITHM; }
    @Override public String scenario() { return "ims"; }
    @Override public Exchange exchange() { return new AkaExchange(); }

    private String registerUri() { return "sip:" + domain; }

    private final class AkaExchange implements Exchange {
        private int challenges;
        private boolean sentResponse; // the last REGISTER carried a RES
        private boolean sentAuts;     // a resync was already asked for

        @Override
        public Send first() { return new Send(AkaDigest.initialHeader(sub.impi(), domain, registerUri()), ""); }

        @Override
        public Step challenged(Response response, ClientTransaction ct) {
            int code = response.getStatusCode();
            if (code == Response.PROXY_AUTHENTICATION_REQUIRED) {
                // never answered with a digest of the web password: an AKA user has no SIP password
                return new Refuse(RegistrationException.Kind.REJECTED, code, "the P-CSCF asked for proxy authentication (407) but "
                        + sub.login() + " has AKA credentials");
            }
            if (code != Response.UNAUTHORIZED) return PASS;
            return answer((WWWAuthenticateHeader) response.getHeader(WWWAuthenticateHeader.NAME));
        }

        /** RFC 3310 / TS 33.203: verify AUTN, answer with RES, or with AUTS when the SQN is not fresh. */
        private Step answer(WWWAuthenticateHeader w) {
            if (w == null || !AkaDigest.ALGORITHM.equalsIgnoreCase(w.getAlgorithm())) {
                return refuse(RegistrationException.Kind.REJECTED, "the registrar's 401 does not ask for " + AkaDigest.ALGORITHM
                        + " (algorithm=" + (w == null ? "none" : w.getAlgorithm()) + ") but " + sub.login() + " has AKA credentials");
            }
            if (sentResponse) return refuse(RegistrationException.Kind.AUTH_FAILED, "the registrar challenged the AKA response of " + sub.impi() + " again");
            if (++challenges > MAX_CHALLENGES) return refuse(RegistrationException.Kind.REJECTED, "too many AKA challenges for " + sub.impi());
            AkaDigest.Challenge c;
            try {
                c = AkaDigest.Challenge.ofNonce(w.getNonce());
            } catch (IllegalArgumentException e) {
                return refuse(RegistrationException.Kind.REJECTED, "bad AKA challenge: " + e.getMessage());
            }
            Usim.Result result = sub.usim().authenticate(c.rand(), c.autn());
            String realm = w.getRealm() == null ? domain : w.getRealm();
            if (result instanceof Usim.Success ok) {
                log.info("AKA challenge for {}: AUTN verified (SQN {}), answering with RES", sub.impi(), Long.toHexString(ok.sqn()));
                sentResponse = true;
                return new Send(AkaDigest.header(AkaDigest.answer(sub.impi(), realm, w.getNonce(), registerUri(),
                        Request.REGISTER, w.getQop(), w.getOpaque(), ok.res(), null)), " (AKA response)");
            }
            if (result instanceof Usim.SyncFailure sync) {
                if (sentAuts) {
                    return refuse(RegistrationException.Kind.AUTH_FAILED, "the network's SQN for " + sub.impi()
                            + " is still not fresh after a resynchronisation");
                }
                log.info("AKA challenge for {}: SQN {} not fresh (SQN_MS {}), resynchronising with AUTS", sub.impi(),
                        Long.toHexString(sync.sqn()), Long.toHexString(sync.sqnMs()));
                sentAuts = true;
                return new Send(AkaDigest.header(AkaDigest.answer(sub.impi(), realm, w.getNonce(), registerUri(),
                        Request.REGISTER, w.getQop(), w.getOpaque(), null, sync.auts())), " (AUTS resync)");
            }
            return refuse(RegistrationException.Kind.AUTH_FAILED,
                    "the network failed authentication for " + sub.impi() + ": AUTN's MAC-A does not match (wrong K/OPc?)");
        }

        private Refuse refuse(RegistrationException.Kind kind, String message) {
            return new Refuse(kind, Response.UNAUTHORIZED, message);
        }
    }
}

package org.webrtcims.gw.sip;

import gov.nist.javax.sip.clientauthutils.AccountManager;
import gov.nist.javax.sip.clientauthutils.AuthenticationHelper;
import gov.nist.javax.sip.clientauthutils.UserCredentials;
import org.junit.jupiter.api.Test;
import org.webrtcims.gw.sip.aka.ImsCredentials;
import org.webrtcims.gw.sip.aka.Usim;

import javax.sip.ClientTransaction;
import javax.sip.SipException;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.Mockito.*;

/**
 * The authentication strategies of the TS 24.371 §6 scenarios one by one, on real JAIN-SIP messages: what each puts
 * in the first REGISTER and what it makes of a 401, 403 or 407 (AkaAuth's RES/AUTS answers are
 * RegistrationClientAkaTest's, with a Milenage network of its own).
 */
class RegisterAuthTest {
    static final byte[] WEB = "web".getBytes(StandardCharsets.UTF_8);

    static ImsCredentials.Subscriber sub(String login, ImsCredentials.Kind kind, String impi, String impu, Usim usim, String sipPassword) {
        return new ImsCredentials.Subscriber(login, kind, impi, List.of(impu), usim, login.equals("-") ? null : WEB, sipPassword);
    }

    static Request register() throws Exception {
        return SipFixtures.request(Request.REGISTER, "alice", "reg-1", "t1", null, 1, null);
    }

    static Response answer(int code, Request to) throws Exception {
        return SipFixtures.MESSAGES.createResponse(code, to);
    }

    static ClientTransaction transactionOf(Request sent) {
        ClientTransaction ct = mock(ClientTransaction.class);
        when(ct.getRequest()).thenReturn(sent);
        return ct;
    }

    /** A DigestAuth on a UA whose JAIN-SIP helper is mocked; returns the helper, the AccountManager it was given in out. */
    static AuthenticationHelper digestHelper(SipUserAgent ua, AtomicReference<AccountManager> accounts) {
        AuthenticationHelper helper = mock(AuthenticationHelper.class);
        when(ua.authenticationHelper(any())).thenAnswer(i -> {
            accounts.set(i.getArgument(0));
            return helper;
        });
        return helper;
    }

    @Test
    void digestAnswersTheFirstChallengeWithTheHelpersRegisterAndTheLoginsCredentials() throws Exception {
        SipUserAgent ua = SipTestUa.withFactories();
        AtomicReference<AccountManager> accounts = new AtomicReference<>();
        AuthenticationHelper helper = digestHelper(ua, accounts);
        DigestAuth auth = new DigestAuth("alice", "pw", null, ua);
        assertEquals(new RegisterAuth.Send(null, ""), auth.exchange().first(), "the first REGISTER carries no credentials");
        assertEquals("digest", auth.mechanism());
        assertEquals("ims", auth.scenario());
        assertNull(auth.impu(), "no IMPU without a credentials file: sip:alice@domain is registered");

        Request sent = register();
        ClientTransaction ct = transactionOf(sent);
        ClientTransaction prepared = mock(ClientTransaction.class);
        Response challenge = answer(401, sent);
        when(helper.handleChallenge(eq(challenge), eq(ct), any(), anyInt())).thenReturn(prepared);
        RegisterAuth.Step step = auth.exchange().challenged(challenge, ct);
        assertEquals(new RegisterAuth.SendPrepared(prepared, " (digest response)"), step);
        UserCredentials c = accounts.get().getCredentials(ct, "ims.lab");
        assertEquals(List.of("alice", "pw", "ims.lab"), List.of(c.getUserName(), c.getPassword(), c.getSipDomain()));
        assertEquals(RegisterAuth.PASS, auth.exchange().challenged(answer(403, sent), ct), "a 403 is the transaction's own");
    }

    @Test
    void digestTowardAnOutsideImsUsesTheImpiAndTheSipPasswordAndAChallengedAnswerIsARejection() throws Exception {
        SipUserAgent ua = SipTestUa.withFactories();
        AtomicReference<AccountManager> accounts = new AtomicReference<>();
        digestHelper(ua, accounts);
        DigestAuth auth = new DigestAuth("erin", "web", sub("erin", ImsCredentials.Kind.DIGEST, "2345@op.example",
                "sip:+15552345@op.example", null, "sip-pw"), ua);
        assertEquals("sip:+15552345@op.example", auth.impu());
        UserCredentials c = accounts.get().getCredentials(mock(ClientTransaction.class), "op.example");
        assertEquals(List.of("2345@op.example", "sip-pw"), List.of(c.getUserName(), c.getPassword()),
                "the IMPI and the SIP password of the credentials file, never the web password");

        Request answered = register();
        answered.addHeader(SipFixtures.HEADERS.createHeader("Authorization", "Digest username=\"2345@op.example\""));
        RegisterAuth.Step again = auth.exchange().challenged(answer(407, answered), transactionOf(answered));
        RegisterAuth.Refuse refuse = assertInstanceOf(RegisterAuth.Refuse.class, again, "a challenge to the answer: " + again);
        assertEquals(RegistrationException.Kind.AUTH_FAILED, refuse.kind());
        assertEquals(407, refuse.code());
        assertEquals("the registrar rejected the credentials of erin", refuse.message());
    }

    @Test
    void aDigestChallengeTheHelperCannotAnswerFailsWithTheReasonInTheFlow() throws Exception {
        SipUserAgent ua = SipTestUa.withFactories();
        AuthenticationHelper helper = digestHelper(ua, new AtomicReference<>());
        when(helper.handleChallenge(any(), any(), any(), anyInt())).thenThrow(new SipException("no realm"));
        Request sent = register();
        RegisterAuth.Step step = new DigestAuth("alice", "pw", null, ua).exchange().challenged(answer(401, sent), transactionOf(sent));
        assertEquals(new RegisterAuth.Refuse(RegistrationException.Kind.REJECTED, 401, "cannot answer the digest challenge: no realm",
                "REGISTER not sent: no realm"), step);
    }

    @Test
    void trustedNodeNamesTheImpiWithAuthDoneAndAnyChallengeIsARefusalOfTheNode() throws Exception {
        TrustedNodeAuth auth = new TrustedNodeAuth(sub("dave", ImsCredentials.Kind.TNA, "dave@ims.lab", "sip:dave@ims.lab", null, null), "ims.lab");
        assertEquals(new RegisterAuth.Send("Digest username=\"dave@ims.lab\", realm=\"ims.lab\", nonce=\"\", uri=\"sip:ims.lab\", "
                + "response=\"\", integrity-protected=\"auth-done\"", " (auth-done)"), auth.exchange().first());
        assertEquals(List.of("trusted-node", "web"), List.of(auth.mechanism(), auth.scenario()));
        Request sent = register();
        for (int code : new int[] {401, 403, 407}) {
            RegisterAuth.Refuse r = assertInstanceOf(RegisterAuth.Refuse.class, auth.exchange().challenged(answer(code, sent), transactionOf(sent)));
            assertEquals(RegistrationException.Kind.REJECTED, r.kind(), "code " + code);
            assertTrue(r.message().startsWith("the core refused trusted node authentication of sip:dave@ims.lab: " + code), r.message());
        }
        assertThrows(IllegalArgumentException.class, () -> new TrustedNodeAuth(
                sub("bob", ImsCredentials.Kind.DIGEST, "bob@ims.lab", "sip:bob@ims.lab", null, "x"), "ims.lab"), "a digest user is no trusted node user");
    }

    @Test
    void akaNamesTheImpiFirstAndRefusesAProxyChallengeInsteadOfSendingTheWebPassword() throws Exception {
        Usim usim = new Usim(new byte[16], new byte[16], new byte[2], 0);
        AkaAuth auth = new AkaAuth(sub("alice", ImsCredentials.Kind.AKA, "alice@ims.lab", "sip:alice@ims.lab", usim, null), "ims.lab");
        RegisterAuth.Send first = auth.exchange().first();
        assertTrue(first.authorization().contains("username=\"alice@ims.lab\""), first.authorization());
        assertEquals(List.of("AKAv1-MD5", "ims"), List.of(auth.mechanism(), auth.scenario()));
        Request sent = register();
        RegisterAuth.Refuse r = assertInstanceOf(RegisterAuth.Refuse.class, auth.exchange().challenged(answer(407, sent), transactionOf(sent)));
        assertEquals(RegistrationException.Kind.REJECTED, r.kind());
        assertTrue(r.message().contains("407") && r.message().contains("AKA credentials"), r.message());
        assertEquals(RegisterAuth.PASS, auth.exchange().challenged(answer(403, sent), transactionOf(sent)));
        Response noChallenge = answer(401, sent);
        RegisterAuth.Refuse bare = assertInstanceOf(RegisterAuth.Refuse.class, auth.exchange().challenged(noChallenge, transactionOf(sent)));
        assertTrue(bare.message().contains("does not ask for AKAv1-MD5 (algorithm=none)"), bare.message());
    }

    @Test
    void thePoolLendsEachIdentityOnceAndAReleasedOneOnlyOnce() {
        GuestPool pool = new GuestPool(List.of(sub("-", ImsCredentials.Kind.TNA, "guest1@ims.lab", "sip:guest1@ims.lab", null, null),
                sub("-", ImsCredentials.Kind.TNA, "guest2@ims.lab", "sip:guest2@ims.lab", null, null)), "ims.lab");
        assertTrue(pool.enabled());
        PoolIdentityAuth g1 = pool.take().orElseThrow();
        PoolIdentityAuth g2 = pool.take().orElseThrow();
        assertEquals(List.of("sip:guest1@ims.lab", "sip:guest2@ims.lab"), List.of(g1.impu(), g2.impu()));
        assertEquals(List.of("trusted-node", "pool"), List.of(g1.mechanism(), g1.scenario()));
        assertEquals(Optional.empty(), pool.take(), "every identity is in use");
        g1.released();
        PoolIdentityAuth again = pool.take().orElseThrow();
        assertEquals("sip:guest1@ims.lab", again.impu(), "the released identity is lent again");
        g1.released(); // late second release of the first guest's registration
        assertEquals(2, pool.inUse(), "a second release must not free the identity the next guest holds");
        assertFalse(new GuestPool(List.of(), "ims.lab").enabled());
    }
}

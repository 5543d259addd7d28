package org.webrtcims.gw.sip;

import gov.nist.javax.sip.clientauthutils.AuthenticationHelper;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.metrics.GatewayMetrics;

import javax.sip.ClientTransaction;
import javax.sip.ResponseEvent;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.*;

/**
 * One REGISTER transaction on real JAIN-SIP messages, the registrar played here: the digest login of the light core
 * (401, the REGISTER JAIN-SIP's helper prepared, 200) with its flow, CSeq and metrics, and a failure that is nobody's
 * authentication matter.
 */
class RegisterTransactionTest {
    final GatewayMetrics metrics = GatewayMetrics.none();

    RegisterTransaction transaction(PlayedRegistrar registrar, Registration reg, int expires) {
        GatewayProperties props = new GatewayProperties();
        return new RegisterTransaction(registrar.ua, new SipRequests(registrar.ua, props), metrics, reg, expires,
                r -> new RegisterOk(300, List.of(), RegisteredIdentities.registered(List.of("sip:alice@ims.lab"))));
    }

    @Test
    void aDigestChallengeIsAnsweredWithTheHelpersRegisterAndItsTwoHundredRegisters() throws Exception {
        PlayedRegistrar registrar = new PlayedRegistrar("dg-");
        AuthenticationHelper helper = RegisterAuthTest.digestHelper(registrar.ua, new AtomicReference<>());
        Registration reg = new Registration("alice", new DigestAuth("alice", "pw", null, registrar.ua), "dg-1", "wcontact");
        CompletableFuture<Void> done = transaction(registrar, reg, 600).start();
        Request first = registrar.sent.get(0);
        assertEquals("600", first.getHeader("Expires").toString().replaceAll("\\D", ""));
        assertTrue(first.getHeader("Supported").toString().contains("path"), first.toString());
        assertNull(first.getHeader("Authorization"), "the first REGISTER of a digest login carries no credentials");

        Request second = (Request) first.clone();
        second.addHeader(SipFixtures.HEADERS.createHeader("Authorization", "Digest username=\"alice\""));
        ((javax.sip.header.CSeqHeader) second.getHeader("CSeq")).setSeqNumber(2);
        ClientTransaction prepared = RegisterAuthTest.transactionOf(second);
        when(helper.handleChallenge(any(), any(), any(), anyInt())).thenReturn(prepared);
        registrar.answer(0, 401, "Digest realm=\"ims.lab\", nonce=\"abc\", algorithm=MD5");
        ArgumentCaptor<ResponseHandler> handler = ArgumentCaptor.forClass(ResponseHandler.class);
        verify(registrar.ua).sendPrepared(eq(prepared), handler.capture());
        assertFalse(done.isDone(), "the answer to the challenge is still out");

        ResponseEvent ok = mock(ResponseEvent.class);
        when(ok.getResponse()).thenReturn(SipFixtures.MESSAGES.createResponse(Response.OK, second));
        when(ok.getClientTransaction()).thenReturn(prepared);
        handler.getValue().onResponse(ok);
        done.get();
        assertEquals(List.of("sent REGISTER", "recv 401 (MD5)", "sent REGISTER (digest response)", "recv 200"), reg.flow());
        assertEquals(300, reg.grantedExpires());
        assertEquals(3, reg.nextCseq(), "the next REGISTER counts on after the helper's CSeq 2");
        assertEquals(2, metrics.registry().find("gw.register.requests").tag("kind", "initial").counter().count());
        assertEquals(1, metrics.registry().find("gw.registrations.completed").tags("kind", "initial", "result", "ok").counter().count());
    }

    @Test
    void aDeRegisterRefusedWithAServerErrorIsRejectedWithItsCode() throws Exception {
        PlayedRegistrar registrar = new PlayedRegistrar("dg-");
        RegisterAuthTest.digestHelper(registrar.ua, new AtomicReference<>());
        Registration reg = new Registration("alice", new DigestAuth("alice", "pw", null, registrar.ua), "dg-1", "wcontact");
        CompletableFuture<Void> done = transaction(registrar, reg, 0).start();
        registrar.answer(0, 500, null);
        RegistrationException e = assertInstanceOf(RegistrationException.class, assertThrows(ExecutionException.class, done::get).getCause());
        assertEquals(RegistrationException.Kind.REJECTED, e.kind());
        assertEquals(500, e.sipCode());
        assertEquals(List.of("sent REGISTER (Expires: 0)", "recv 500"), reg.flow());
        assertNull(reg.granted(), "a failure grants nothing");
        assertEquals(1, metrics.registry().find("gw.registrations.completed").tags("kind", "deregister", "result", "failed").counter().count());
    }
}

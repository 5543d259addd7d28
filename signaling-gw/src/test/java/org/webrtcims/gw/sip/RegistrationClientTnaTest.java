package org.webrtcims.gw.sip;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.webrtcims.gw.config.GatewayProperties;

import javax.sip.ClientTransaction;
import javax.sip.ResponseEvent;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.*;

/**
 * RegistrationClient for the other TS 24.371 §6 scenarios, on real JAIN-SIP messages with a registrar played
 * here: web authentication (trusted node authentication, integrity-protected="auth-done", no challenge) and
 * guest logins taking identities from the pool and giving them back after the de-REGISTER.
 */
class RegistrationClientTnaTest {
    List<Request> sent;
    PlayedRegistrar registrar;
    RegistrationClient client;

    @BeforeEach
    void setUp(@TempDir Path dir) throws Exception {
        Path creds = dir.resolve("creds.txt");
        Files.writeString(creds, String.join("\n", "dave dave-secret tna dave@ims.lab sip:dave@ims.lab",
                "- - pool guest1@ims.lab sip:guest1@ims.lab", "- - pool guest2@ims.lab sip:guest2@ims.lab", ""));
        GatewayProperties props = new GatewayProperties();
        props.getIms().setCredentials(creds.toString());
        registrar = new PlayedRegistrar("reg-call-");
        sent = registrar.sent;
        SipUserAgent ua = registrar.ua;
        client = new RegistrationClient(ua, new SipRequests(ua, props), props);
    }

    /** Options whose credentials file lists only dave (web authentication), no pool. */
    static GatewayProperties daveOnly(Path dir) throws java.io.IOException {
        Path creds = dir.resolve("c.txt");
        Files.writeString(creds, "dave dave-secret tna dave@ims.lab sip:dave@ims.lab\n");
        GatewayProperties props = new GatewayProperties();
        props.getIms().setCredentials(creds.toString());
        return props;
    }

    void answer(int index, int code) {
        registrar.answer(index, code, null);
    }

    @Test
    void webAuthenticationRegistersTheMappedIdentityWithAuthDoneAndNoChallenge() throws Exception {
        CompletableFuture<Void> done = client.register("dave", "dave-secret");
        assertEquals(1, sent.size());
        Request reg = sent.get(0);
        assertTrue(reg.getHeader("From").toString().contains("<sip:dave@ims.lab>"), reg.toString());
        assertTrue(reg.getHeader("To").toString().contains("<sip:dave@ims.lab>"), reg.toString());
        Map<String, String> a = RegistrationClientAkaTest.authorization(reg);
        assertEquals("dave@ims.lab", a.get("username"), "the IMPI the web identity maps to");
        assertEquals("auth-done", a.get("integrity-protected"), "trusted node authentication");
        assertEquals("", a.get("response"));
        answer(0, 200);
        done.get();
        RegistrationClient.Status s = client.status("dave").orElseThrow();
        assertEquals("trusted-node", s.auth());
        assertEquals("web", s.scenario());
        assertEquals("sip:dave@ims.lab", s.impu());
        assertNull(s.regEvent(), "reg-event is off by default");
        assertEquals(List.of("sent REGISTER (auth-done)", "recv 200"), s.sipFlow());
    }

    @Test
    void theFlowShowsTheRegisterBeforeItsAnswerWhenTheAnswerComesBackDuringTheSend() throws Exception {
        registrar.answerDuringSend = 200;
        client.register("dave", "dave-secret").get();
        assertEquals(List.of("sent REGISTER (auth-done)", "recv 200"), client.status("dave").orElseThrow().sipFlow());
    }

    @Test
    void theWebPasswordIsCheckedAndAChallengeOrRefusalFailsTheLogin() {
        ExecutionException e = assertThrows(ExecutionException.class, () -> client.register("dave", "wrong").get());
        assertEquals(RegistrationException.Kind.AUTH_FAILED, ((RegistrationException) e.getCause()).kind());
        assertEquals(0, sent.size(), "nothing sent for a wrong web password");
        for (int code : new int[] {401, 403}) {
            CompletableFuture<Void> done = client.register("dave", "dave-secret");
            answer(sent.size() - 1, code);
            RegistrationException r = (RegistrationException) assertThrows(ExecutionException.class, done::get).getCause();
            assertEquals(RegistrationException.Kind.REJECTED, r.kind(), "the core did not trust the node: " + code);
            assertTrue(r.getMessage().contains("refused trusted node authentication of sip:dave@ims.lab"), r.getMessage());
        }
        assertTrue(client.status("dave").isEmpty());
    }

    @Test
    void guestsTakeFreePoolIdentitiesAndGiveThemBackAfterTheDeRegister() throws Exception {
        assertTrue(client.guestsEnabled());
        CompletableFuture<String> g1 = client.registerGuest();
        CompletableFuture<String> g2 = client.registerGuest();
        assertTrue(sent.get(0).getHeader("To").toString().contains("sip:guest1@ims.lab"));
        assertTrue(sent.get(1).getHeader("To").toString().contains("sip:guest2@ims.lab"));
        assertEquals("auth-done", RegistrationClientAkaTest.authorization(sent.get(1)).get("integrity-protected"));
        answer(0, 200);
        answer(1, 200);
        assertEquals("guest1", g1.get());
        assertEquals("guest2", g2.get());
        assertEquals("pool", client.status("guest1").orElseThrow().scenario());

        RegistrationException full = (RegistrationException) assertThrows(ExecutionException.class, () -> client.registerGuest().get()).getCause();
        assertEquals(RegistrationException.Kind.POOL_EXHAUSTED, full.kind());
        assertEquals(2, sent.size(), "nothing sent when the pool is exhausted");

        CompletableFuture<Void> gone = client.unregister("guest1");
        assertEquals("0", sent.get(2).getHeader("Expires").toString().replaceAll("\\D", ""));
        assertEquals(RegistrationException.Kind.POOL_EXHAUSTED,
                ((RegistrationException) assertThrows(ExecutionException.class, () -> client.registerGuest().get()).getCause()).kind(),
                "guest1 goes back to the pool only once de-registered");
        answer(2, 200);
        gone.get();
        CompletableFuture<String> g3 = client.registerGuest();
        assertTrue(sent.get(3).getHeader("To").toString().contains("sip:guest1@ims.lab"), "the freed identity is reused");
        answer(3, 200);
        assertEquals("guest1", g3.get());
    }

    @Test
    void aFailedGuestRegistrationFreesItsIdentity() throws Exception {
        CompletableFuture<String> g = client.registerGuest();
        answer(0, 403);
        assertThrows(ExecutionException.class, g::get);
        CompletableFuture<String> again = client.registerGuest();
        assertTrue(sent.get(1).getHeader("To").toString().contains("sip:guest1@ims.lab"));
        answer(1, 200);
        assertEquals("guest1", again.get());
    }

    @Test
    void withRegEventTheGatewaySubscribesAndANotifyOfTheTerminatedRegistrationEndsTheBinding(@TempDir Path dir) throws Exception {
        GatewayProperties props = daveOnly(dir);
        props.getIms().setRegEvent(true);
        registrar = new PlayedRegistrar("call-");
        sent = registrar.sent;
        SipUserAgent ua = registrar.ua;
        javax.sip.ServerTransaction st = mock(javax.sip.ServerTransaction.class);
        List<Response> answered = new ArrayList<>();
        doAnswer(i -> answered.add(i.getArgument(0))).when(st).sendResponse(any());
        when(ua.serverTransaction(any())).thenReturn(st);
        java.util.concurrent.atomic.AtomicReference<java.util.function.Consumer<javax.sip.RequestEvent>> notify = new java.util.concurrent.atomic.AtomicReference<>();
        doAnswer(i -> { notify.set(i.getArgument(0)); return null; }).when(ua).setNotifyHandler(any());
        RegistrationClient c = new RegistrationClient(ua, new SipRequests(ua, props), props);
        List<String> ended = new ArrayList<>();
        c.onNetworkDeregistration((user, reason) -> ended.add(user + ":" + reason));

        CompletableFuture<Void> done = c.register("dave", "dave-secret");
        answer(0, 200);
        done.get();
        Request sub = sent.get(1);
        assertEquals("SUBSCRIBE", sub.getMethod());
        // the registration's Contact user part (random, sip/ContactUsers): the reginfo names our contact by it
        String contact = ((javax.sip.address.SipURI) ((javax.sip.header.ContactHeader) sent.get(0).getHeader("Contact"))
                .getAddress().getURI()).getUser();
        assertEquals(contact, ((javax.sip.address.SipURI) ((javax.sip.header.ContactHeader) sub.getHeader("Contact"))
                .getAddress().getURI()).getUser(), "the SUBSCRIBE's Contact is the registered one");
        assertEquals("sip:dave@ims.lab", sub.getRequestURI().toString());
        assertTrue(sub.getHeader("Event").toString().contains("reg"), sub.toString());
        assertTrue(sub.getHeader("Accept").toString().contains("application/reginfo+xml"), sub.toString());
        answer(1, 200);
        assertEquals("active", c.status("dave").orElseThrow().regEvent());

        String callId = sub.getHeader("Call-ID").toString().replaceFirst("(?i)^Call-ID:\\s*", "").trim();
        java.util.function.Function<String, javax.sip.RequestEvent> notifyEvent = body -> {
            try {
                Request n = SipFixtures.MESSAGES.createRequest("NOTIFY sip:dave@127.0.0.1:5070 SIP/2.0\r\n"
                        + "Via: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bK-n" + body.length() + "\r\nMax-Forwards: 70\r\n"
                        + "From: <sip:dave@ims.lab>;tag=s\r\nTo: <sip:dave@ims.lab>;tag=g\r\nCall-ID: " + callId + "\r\n"
                        + "CSeq: 2 NOTIFY\r\nEvent: reg\r\nSubscription-State: active;expires=600\r\n"
                        + "Content-Type: application/reginfo+xml\r\nContent-Length: " + body.length() + "\r\n\r\n" + body);
                javax.sip.RequestEvent ev = mock(javax.sip.RequestEvent.class);
                when(ev.getRequest()).thenReturn(n);
                return ev;
            } catch (java.text.ParseException e) {
                throw new AssertionError(e);
            }
        };
        String active = "<reginfo xmlns=\"urn:ietf:params:xml:ns:reginfo\"><registration aor=\"sip:dave@ims.lab\" state=\"active\">"
                + "<contact state=\"active\" event=\"registered\"><uri>sip:" + contact + "@127.0.0.1:5070</uri></contact></registration></reginfo>";
        notify.get().accept(notifyEvent.apply(active));
        assertEquals(200, answered.get(0).getStatusCode());
        assertTrue(ended.isEmpty(), "an active registration ends nothing");
        notify.get().accept(notifyEvent.apply(active.replace("state=\"active\" event=\"registered\"", "state=\"terminated\" event=\"deactivated\"")));
        assertEquals(200, answered.get(1).getStatusCode());
        assertEquals(List.of("dave:deactivated"), ended);
        assertTrue(c.status("dave").isEmpty(), "the binding is gone, no de-REGISTER sent");
        assertEquals(2, sent.size());
        c.unregister("dave").get();
        assertEquals(2, sent.size(), "nothing left to de-register");
    }

    @Test
    void withoutAPoolGuestLoginsAreOff(@TempDir Path dir) throws Exception {
        GatewayProperties props = daveOnly(dir);
        SipUserAgent ua = SipTestUa.withFactories();
        RegistrationClient c = new RegistrationClient(ua, new SipRequests(ua, props), props);
        assertFalse(c.guestsEnabled());
        assertEquals(RegistrationException.Kind.REJECTED,
                ((RegistrationException) assertThrows(ExecutionException.class, () -> c.registerGuest().get()).getCause()).kind());
    }
}

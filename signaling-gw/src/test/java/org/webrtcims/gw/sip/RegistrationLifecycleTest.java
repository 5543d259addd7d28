package org.webrtcims.gw.sip;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.metrics.GatewayMetrics;
import org.webrtcims.gw.sip.aka.ImsCredentials;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The registration lifecycle on its own, whatever the authentication: what a refused login leaves alone, and what a
 * registration gives back when it ends (its Contact user part, a pool identity) — after a de-REGISTER and when the
 * network ended it. Real JAIN-SIP messages, the registrar played here.
 */
class RegistrationLifecycleTest {
    final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    final ContactUsers contacts = new ContactUsers();
    PlayedRegistrar registrar;
    RegistrationLifecycle lifecycle;

    void start(boolean regEventOn) throws Exception {
        GatewayProperties props = new GatewayProperties();
        registrar = new PlayedRegistrar("lc-");
        SipRequests requests = new SipRequests(registrar.ua, props);
        RegEvent regEvent = new RegEvent(registrar.ua, requests, props, timer);
        lifecycle = new RegistrationLifecycle(new RegisterSender(registrar.ua, requests, props, GatewayMetrics.none()), contacts,
                regEvent, regEventOn, props.getIms().getRegisterExpires(), timer);
        regEvent.onTerminated(lifecycle::networkDeregistered);
    }

    @AfterEach
    void tearDown() { timer.shutdownNow(); }

    RegisterAuth digest(String user) { return new DigestAuth(user, "pw", null, registrar.ua); }

    GuestPool pool() {
        return new GuestPool(List.of(new ImsCredentials.Subscriber("guest1", ImsCredentials.Kind.TNA, "guest1@ims.lab",
                List.of("sip:guest1@ims.lab"), null, null, null)), "ims.lab");
    }

    @Test
    void aRefusedSecondLoginLeavesTheLiveRegistrationAndItsContactAlone() throws Exception {
        start(false);
        CompletableFuture<Void> first = lifecycle.register("alice", digest("alice"), "lc-a");
        registrar.answer(0, 200, null);
        first.get();
        Registration live = lifecycle.of("alice").orElseThrow();
        CompletableFuture<Void> again = lifecycle.register("alice", digest("alice"), "lc-b");
        registrar.answer(1, 403, null);
        assertThrows(ExecutionException.class, again::get);
        assertSame(live, lifecycle.of("alice").orElseThrow(), "the refused login replaced nothing");
        assertEquals(Optional.of("alice"), contacts.loginOf(live.contactUser), "the live contact still reaches alice");
        assertEquals(1, lifecycle.size());
    }

    @Test
    void aPoolIdentityGoesBackAfterTheDeRegisterIsAnswered() throws Exception {
        start(false);
        GuestPool pool = pool();
        CompletableFuture<Void> login = lifecycle.register("guest1", pool.take().orElseThrow(), "lc-g");
        registrar.answer(0, 200, null);
        login.get();
        CompletableFuture<Void> logout = lifecycle.unregister("guest1");
        assertEquals(1, pool.inUse(), "held until the de-REGISTER is answered");
        assertEquals(0, contacts.size(), "the contact user part is released at once");
        registrar.answer(1, 200, null);
        logout.get();
        assertEquals(0, pool.inUse(), "back in the pool once de-registered");
        assertTrue(lifecycle.of("guest1").isEmpty());
    }

    @Test
    void whenTheNetworkEndsARegistrationItsIdentityAndContactAreGivenBackAndTheListenerHears() throws Exception {
        start(true);
        GuestPool pool = pool();
        List<String> ended = new ArrayList<>();
        lifecycle.onNetworkDeregistration((user, reason) -> ended.add(user + ":" + reason));
        CompletableFuture<Void> login = lifecycle.register("guest1", pool.take().orElseThrow(), "lc-g");
        registrar.answer(0, 200, null);
        login.get();
        Registration reg = lifecycle.of("guest1").orElseThrow();
        assertNotNull(reg.subscription(), "reg-event on: the registration subscribed");
        assertEquals("SUBSCRIBE", registrar.sent.get(1).getMethod());

        lifecycle.networkDeregistered(reg.subscription(), "deactivated");
        assertEquals(List.of("guest1:deactivated"), ended);
        assertTrue(lifecycle.of("guest1").isEmpty());
        assertEquals(0, pool.inUse(), "the pool identity is free again");
        assertEquals(0, contacts.size());
        assertTrue(reg.flow().contains("recv NOTIFY (registration terminated: deactivated)"), reg.flow().toString());
        assertEquals(2, registrar.sent.size(), "no de-REGISTER of a registration the network ended");
        lifecycle.networkDeregistered(reg.subscription(), "deactivated");
        assertEquals(1, ended.size(), "a second NOTIFY of the same end is not a second end");
    }
}

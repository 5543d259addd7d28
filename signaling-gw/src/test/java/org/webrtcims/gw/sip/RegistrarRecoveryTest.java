package org.webrtcims.gw.sip;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.webrtcims.gw.config.GatewayProperties;

import javax.sip.message.Request;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

/**
 * What the gateway does when its registrar goes away and comes back (harness/tests/faults.test.mjs "Kamailio
 * restarted"): a failed refresh is tried again instead of leaving the user unregistered, and the OPTIONS
 * keepalive re-REGISTERs every user when the P-CSCF answers again after a silence. Real JAIN-SIP messages,
 * the registrar played here.
 */
class RegistrarRecoveryTest {
    final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void tearDown() { timer.shutdownNow(); }

    static long count(List<Request> sent, String method) {
        synchronized (sent) {
            return sent.stream().filter(r -> r.getMethod().equals(method)).count();
        }
    }

    static Request last(List<Request> sent) {
        synchronized (sent) {
            return sent.get(sent.size() - 1);
        }
    }

    /** Logs {@code user} in; the registrar answers its REGISTER, sent request {@code index}, with 200. */
    static void registered(RegistrationClient client, PlayedRegistrar registrar, String user, int index) throws Exception {
        var login = client.register(user, "pw");
        registrar.answer(index, 200, null);
        login.get();
    }

    static void waitFor(java.util.function.BooleanSupplier cond, long ms, String what) throws InterruptedException {
        long end = System.currentTimeMillis() + ms;
        while (!cond.getAsBoolean()) {
            if (System.currentTimeMillis() > end) fail("not within " + ms + " ms: " + what);
            Thread.sleep(20);
        }
    }

    @Test
    void aFailedRefreshIsTriedAgainAndTheBindingKept() throws Exception {
        GatewayProperties props = new GatewayProperties();
        props.getIms().setRegisterExpires(1); // refresh after 1 s (80 % of 1 s, at least 1 s)
        PlayedRegistrar registrar = new PlayedRegistrar("reg-");
        RegistrationClient client = new RegistrationClient(registrar.ua, new SipRequests(registrar.ua, props), props);
        try {
            registered(client, registrar, "alice", 0);
            waitFor(() -> registrar.sent.size() >= 2, 3000, "the refresh");
            registrar.answer(1, 503, null); // the registrar is restarting
            waitFor(() -> registrar.sent.size() >= 3, 3000, "a retry of the failed refresh");
            assertEquals(Request.REGISTER, registrar.sent.get(2).getMethod());
            assertTrue(client.status("alice").isPresent(), "the binding is kept while the refresh is retried");
            assertTrue(client.status("alice").orElseThrow().sipFlow().stream().anyMatch(f -> f.startsWith("refresh failed, retry in")),
                    client.status("alice").orElseThrow().sipFlow().toString());
            registrar.answer(2, 200, null);
            assertEquals(1, client.status("alice").orElseThrow().refreshes(), "the retry refreshed the binding");
        } finally {
            client.shutdown();
        }
        assertEquals(1000L, RegistrationLifecycle.retryDelayMs(1));
        assertEquals(30000L, RegistrationLifecycle.retryDelayMs(600));
        assertEquals(6000L, RegistrationLifecycle.retryDelayMs(60));
    }

    @Test
    void anAnswerAfterUnansweredKeepalivesCallsBackOnceAndAnAnsweringProxyNever() throws Exception {
        GatewayProperties props = new GatewayProperties();
        PlayedRegistrar registrar = new PlayedRegistrar("ka-");
        AtomicInteger back = new AtomicInteger();
        RegistrarKeepalive ka = new RegistrarKeepalive(registrar.ua, new SipRequests(registrar.ua, props),
                60000, timer, back::incrementAndGet);
        assertEquals(2000L, ka.deadlineMs, "a probe is unanswered after at most 2 s");
        RegistrarKeepalive.Probe p1 = ka.probe();
        Request options = registrar.sent.get(0);
        assertEquals(Request.OPTIONS, options.getMethod());
        assertEquals("sip:127.0.0.1:5060", options.getRequestURI().toString());
        registrar.answer(0, 200, null);
        assertEquals(0, back.get(), "the P-CSCF answered all along");
        ka.missed(p1); // its deadline, after the answer: nothing
        assertEquals(0, ka.missedInARow());

        RegistrarKeepalive.Probe p2 = ka.probe();
        ka.missed(p2);                       // no answer within the deadline: down (or restarting)
        RegistrarKeepalive.Probe p3 = ka.probe();
        ka.missed(p3);
        assertEquals(2, ka.missedInARow());
        registrar.answer(1, 200, null);      // a late answer to p2's retransmission does not count
        assertEquals(0, back.get());
        ka.probe();
        registrar.answer(3, 404, null);      // back: any final response
        assertEquals(1, back.get(), "answering again after a silence re-REGISTERs");
        assertEquals(0, ka.missedInARow());
        ka.probe();
        registrar.answer(4, 200, null);
        assertEquals(1, back.get(), "only once per silence");
    }

    @Test
    void theKeepaliveReRegistersEveryUserWhenTheProxyComesBack() throws Exception {
        GatewayProperties props = new GatewayProperties();
        props.getIms().setKeepaliveMs(200);
        PlayedRegistrar registrar = new PlayedRegistrar("reg-");
        RegistrationClient client = new RegistrationClient(registrar.ua, new SipRequests(registrar.ua, props), props);
        try {
            registered(client, registrar, "alice", 0);
            registered(client, registrar, "bob", 1);
            // keepalives go out every 200 ms and are never answered: the proxy is down
            waitFor(() -> count(registrar.sent, Request.OPTIONS) >= 2 && client.keepaliveMissed() >= 1, 3000, "an unanswered keepalive");
            assertEquals(2, count(registrar.sent, Request.REGISTER), "no REGISTER while the proxy is silent");
            int before = registrar.sent.size();
            waitFor(() -> registrar.sent.size() > before && last(registrar.sent).getMethod().equals(Request.OPTIONS),
                    3000, "the next keepalive");
            int probe = registrar.sent.indexOf(last(registrar.sent));
            waitFor(() -> registrar.handlers.size() > probe, 1000, "its handler recorded");
            registrar.answer(probe, 200, null); // it is back
            waitFor(() -> count(registrar.sent, Request.REGISTER) >= 4, 3000, "both users re-REGISTERed");
            List<Request> copy;
            synchronized (registrar.sent) { copy = List.copyOf(registrar.sent); }
            List<String> users = copy.stream().filter(r -> r.getMethod().equals(Request.REGISTER)).skip(2)
                    .map(r -> ((javax.sip.address.SipURI) ((javax.sip.header.FromHeader) r.getHeader("From")).getAddress().getURI()).getUser())
                    .sorted().toList();
            assertEquals(List.of("alice", "bob"), users);
        } finally {
            client.shutdown();
        }
    }
}

package org.webrtcims.gw.sip;

import org.junit.jupiter.api.Test;
import org.webrtcims.gw.config.GatewayProperties;

import javax.sip.header.RouteHeader;
import javax.sip.message.Request;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * RFC 3263 §4.3 at registration: with lab.ims.proxy a name whose SRV set has a dead first target (PcscfResolverTest's
 * zone: priority 10 → 127.0.0.2:5059, priority 20 → 127.0.0.1:5060), a REGISTER that times out or gets 503 goes to
 * the next target, which stays in use; a real refusal does not move. Real JAIN-SIP messages, the registrar played here.
 */
class RegistrationFailoverTest {
    private record Setup(PlayedRegistrar registrar, RegistrationClient client, Pcscf pcscf, List<String> failovers) { }

    private static Setup setup(int registerTimeoutMs) throws Exception {
        GatewayProperties props = new GatewayProperties();
        props.getIms().setProxy("pool.ims.lab");
        props.getIms().setRegisterTimeoutMs(registerTimeoutMs);
        Pcscf pcscf = new Pcscf(props, new PcscfResolver(new ZoneResolver(PcscfResolverTest.ZONE), false, new Random(1), "the test zone"));
        List<String> failovers = java.util.Collections.synchronizedList(new ArrayList<>());
        pcscf.onFailover((failed, why) -> failovers.add(failed.hostPort() + " " + why));
        PlayedRegistrar registrar = new PlayedRegistrar("fo-");
        return new Setup(registrar, new RegistrationClient(registrar.ua, new SipRequests(registrar.ua, props, pcscf), props), pcscf, failovers);
    }

    private static String routeOf(Request r) {
        return ((RouteHeader) r.getHeader(RouteHeader.NAME)).getAddress().getURI().toString();
    }

    @Test
    void a503MovesTheRegisterToTheNextSrvTargetAndItStaysInUse() throws Exception {
        Setup s = setup(5000);
        var login = s.client().register("alice", "pw");
        assertEquals(1, s.registrar().sent.size());
        assertTrue(routeOf(s.registrar().sent.get(0)).startsWith("sip:127.0.0.2:5059"), routeOf(s.registrar().sent.get(0)));
        s.registrar().answer(0, 503, null);
        assertEquals(2, s.registrar().sent.size(), "no REGISTER to the second target after a 503");
        assertTrue(routeOf(s.registrar().sent.get(1)).startsWith("sip:127.0.0.1:5060"), routeOf(s.registrar().sent.get(1)));
        s.registrar().answer(1, 200, null);
        login.get(2, TimeUnit.SECONDS);
        assertEquals(List.of("127.0.0.2:5059 answered 503"), s.failovers());
        assertEquals("127.0.0.1:5060", s.pcscf().current().hostPort());
        String flow = String.join(", ", s.client().status("alice").orElseThrow().sipFlow());
        assertTrue(flow.contains("P-CSCF 127.0.0.2:5059 answered 503: REGISTER again via 127.0.0.1:5060"), flow);
        // the next login goes straight to the target in use
        s.client().register("bob", "pw");
        assertTrue(routeOf(s.registrar().sent.get(2)).startsWith("sip:127.0.0.1:5060"), routeOf(s.registrar().sent.get(2)));
    }

    @Test
    void aRegisterTimeoutMovesToTheNextTarget() throws Exception {
        Setup s = setup(300);
        var login = s.client().register("alice", "pw");
        RegistrarRecoveryTest.waitFor(() -> s.registrar().sent.size() >= 2, 3000, "the REGISTER to the second target after the timeout");
        assertTrue(routeOf(s.registrar().sent.get(1)).startsWith("sip:127.0.0.1:5060"), routeOf(s.registrar().sent.get(1)));
        s.registrar().answer(1, 200, null);
        login.get(2, TimeUnit.SECONDS);
        assertEquals(List.of("127.0.0.2:5059 did not answer the REGISTER"), s.failovers());
    }

    @Test
    void aRealRefusalDoesNotMoveAndTheLastTargetFailingEndsTheLogin() throws Exception {
        Setup s = setup(5000);
        var login = s.client().register("alice", "pw");
        s.registrar().answer(0, 403, null);
        ExecutionException e = assertThrows(ExecutionException.class, () -> login.get(2, TimeUnit.SECONDS));
        assertEquals(RegistrationException.Kind.AUTH_FAILED, ((RegistrationException) e.getCause()).kind());
        assertEquals(1, s.registrar().sent.size(), "a 403 is the core's answer, not a dead P-CSCF");
        assertEquals(List.of(), s.failovers());
        // both targets 503: one failover, then the login fails with the second's answer (no endless loop)
        var again = s.client().register("alice", "pw");
        s.registrar().answer(1, 503, null);
        s.registrar().answer(2, 503, null);
        e = assertThrows(ExecutionException.class, () -> again.get(2, TimeUnit.SECONDS));
        assertEquals(503, ((RegistrationException) e.getCause()).sipCode());
        assertEquals(3, s.registrar().sent.size());
    }
}

package org.webrtcims.gw.sip;

import org.junit.jupiter.api.Test;
import org.webrtcims.gw.config.GatewayProperties;

import java.util.List;
import java.util.Random;
import java.util.random.RandomGenerator;

import static org.junit.jupiter.api.Assertions.*;

/** RFC 3263 P-CSCF discovery (PcscfResolver) and the failover owner (Pcscf), on an in-memory DNS (ZoneResolver). */
class PcscfResolverTest {
    /** The lab's 3GPP core as ims-sim/3gpp/start-dns.sh publishes it, plus a pool whose first SRV target is dead. */
    static final String ZONE = """
            pcscf.ims.lab.            NAPTR 10 50 "s" "SIP+D2U" "" _sip._udp.pcscf.ims.lab.
            pcscf.ims.lab.            NAPTR 20 50 "s" "SIP+D2T" "" _sip._tcp.pcscf.ims.lab.
            pcscf.ims.lab.            NAPTR 5 50 "s" "SIPS+D2T" "" _sips._tcp.pcscf.ims.lab.
            pcscf.ims.lab.            NAPTR 1 50 "u" "E2U+sip" "!^.*$!sip:x@y!" .
            pcscf.ims.lab.            A 127.0.0.1
            pcscf.ims.lab.            AAAA fd00:1ab:0:0::1
            _sip._udp.pcscf.ims.lab.  SRV 0 10 5060 pcscf.ims.lab.
            _sip._tcp.pcscf.ims.lab.  SRV 0 10 5060 pcscf.ims.lab.
            _sips._tcp.pcscf.ims.lab. SRV 0 10 5061 pcscf.ims.lab.
            pool.ims.lab.             NAPTR 10 50 "s" "SIP+D2U" "" _sip._udp.pool.ims.lab.
            _sip._udp.pool.ims.lab.   SRV 20 10 5060 pcscf.ims.lab.
            _sip._udp.pool.ims.lab.   SRV 10 10 5059 dead.ims.lab.
            dead.ims.lab.             A 127.0.0.2
            prefs.ims.lab.            NAPTR 10 60 "s" "SIP+D2U" "" _sip._udp.pcscf.ims.lab.
            prefs.ims.lab.            NAPTR 10 40 "s" "SIP+D2T" "" _sip._tcp.pcscf.ims.lab.
            nonaptr.ims.lab.          A 127.0.0.9
            _sip._tcp.nonaptr.ims.lab. SRV 0 0 5070 dead.ims.lab.
            _sip._udp.nonaptr.ims.lab. SRV 0 0 5080 pcscf.ims.lab.
            plain.ims.lab.            A 127.0.0.5
            plain.ims.lab.            A 127.0.0.6
            gone.ims.lab.             NAPTR 10 50 "s" "SIP+D2U" "" _sip._udp.gone.ims.lab.
            _sip._udp.gone.ims.lab.   SRV 0 0 0 .
            weights.ims.lab.          NAPTR 10 50 "s" "SIP+D2U" "" _sip._udp.weights.ims.lab.
            _sip._udp.weights.ims.lab. SRV 10 0 5060 zero.ims.lab.
            _sip._udp.weights.ims.lab. SRV 10 100 5060 heavy.ims.lab.
            zero.ims.lab.             A 127.0.1.1
            heavy.ims.lab.            A 127.0.1.2
            """;

    private static PcscfResolver resolver(ZoneResolver dns, RandomGenerator random) {
        return new PcscfResolver(dns, false, random, "the test zone");
    }

    private static List<String> resolve(String value, String transport) throws Exception {
        return resolver(new ZoneResolver(ZONE), new Random(1)).resolve(value, transport, false).stream().map(PcscfResolver.Target::toString).toList();
    }

    @Test
    void naptrOrderPicksTheTransportAndOnlySpokenServicesCount() throws Exception {
        // SIPS+D2T (order 5) is not spoken over udp/tcp, E2U+sip is no SIP transport: D2U (10) before D2T (20)
        assertEquals(List.of("127.0.0.1:5060 (udp)", "127.0.0.1:5060 (tcp)"), resolve("pcscf.ims.lab", "udp"));
        // lab.ims.transport=tcp does not overrule the operator's NAPTR order
        assertEquals(List.of("127.0.0.1:5060 (udp)", "127.0.0.1:5060 (tcp)"), resolve("pcscf.ims.lab", "tcp"));
        // with TLS only SIPS+D2T, on its SRV port
        assertEquals(List.of("127.0.0.1:5061 (tls)"), resolve("pcscf.ims.lab", "tls"));
    }

    @Test
    void naptrPreferenceBreaksAnOrderTie() throws Exception {
        assertEquals(List.of("127.0.0.1:5060 (tcp)", "127.0.0.1:5060 (udp)"), resolve("prefs.ims.lab", "udp"));
    }

    @Test
    void srvPriorityPutsTheLowerValueFirstAndKeepsTheOthersForFailover() throws Exception {
        PcscfResolver r = resolver(new ZoneResolver(ZONE), new Random(7));
        List<PcscfResolver.Target> t = r.resolve("pool.ims.lab", "udp", false);
        assertEquals(List.of("127.0.0.2:5059 (udp)", "127.0.0.1:5060 (udp)"), t.stream().map(PcscfResolver.Target::toString).toList());
        assertTrue(t.get(0).how().contains("SRV _sip._udp.pool.ims.lab. 10 10 5059 dead.ims.lab."), t.get(0).how());
    }

    @Test
    void srvWeightsChooseAtRandomAsRfc2782Says() throws Exception {
        // zero weight first in the running sum (0, 100): a draw of 0 takes it, any other draw the weight-100 one
        RandomGenerator draw0 = new FixedDraw(0), draw57 = new FixedDraw(57);
        assertEquals("127.0.1.1", resolver(new ZoneResolver(ZONE), draw0).resolve("weights.ims.lab", "udp", false).get(0).address());
        assertEquals("127.0.1.2", resolver(new ZoneResolver(ZONE), draw57).resolve("weights.ims.lab", "udp", false).get(0).address());
        // with weights 1 and 3 the heavier one comes first about 3 times in 4
        String zone = """
                w.lab. NAPTR 10 50 "s" "SIP+D2U" "" _sip._udp.w.lab.
                _sip._udp.w.lab. SRV 10 1 5060 a.w.lab.
                _sip._udp.w.lab. SRV 10 3 5060 b.w.lab.
                a.w.lab. A 10.0.0.1
                b.w.lab. A 10.0.0.2
                """;
        PcscfResolver r = resolver(new ZoneResolver(zone), new Random(42));
        int heavyFirst = 0;
        for (int i = 0; i < 2000; i++) if (r.resolve("w.lab", "udp", false).get(0).address().equals("10.0.0.2")) heavyFirst++;
        assertTrue(heavyFirst > 1350 && heavyFirst < 1650, "weight 3 of 4 came first " + heavyFirst + " times in 2000");
    }

    @Test
    void withoutNaptrTheSrvOfEachTransportIsTriedTheConfiguredOneFirst() throws Exception {
        assertEquals(List.of("127.0.0.1:5080 (udp)", "127.0.0.2:5070 (tcp)"), resolve("nonaptr.ims.lab", "udp"));
        assertEquals(List.of("127.0.0.2:5070 (tcp)", "127.0.0.1:5080 (udp)"), resolve("nonaptr.ims.lab", "tcp"));
    }

    @Test
    void withoutNaptrAndSrvTheARecordsOnTheDefaultPort() throws Exception {
        assertEquals(List.of("127.0.0.5:5060 (udp)", "127.0.0.6:5060 (udp)"), resolve("plain.ims.lab", "udp"));
        assertEquals(List.of("127.0.0.5:5061 (tls)", "127.0.0.6:5061 (tls)"), resolve("plain.ims.lab", "tls"));
    }

    @Test
    void anAddressBypassesDnsAndANameWithAPortAsksOnlyForItsAddress() throws Exception {
        ZoneResolver dns = new ZoneResolver(ZONE);
        PcscfResolver r = resolver(dns, new Random(1));
        assertEquals("10.1.2.3:5080 (tcp)", r.resolve("10.1.2.3:5080", "tcp", false).get(0).toString());
        assertEquals("[fd00::5]:5060 (udp)", r.resolve("[fd00::5]:5060", "udp", false).get(0).toString());
        assertEquals("10.1.2.3:5060 (udp)", r.resolve("10.1.2.3", "udp", false).get(0).toString());
        assertEquals(List.of(), dns.queries, "no DNS query for an address");
        assertEquals(List.of("127.0.0.1:6000 (udp)"), r.resolve("pcscf.ims.lab:6000", "udp", false).stream().map(Object::toString).toList());
        assertEquals(List.of("A pcscf.ims.lab."), dns.queries, "RFC 3263 §4.2: a port given, so no NAPTR or SRV");
    }

    @Test
    void anIpv6GatewayAsksForAaaaRecordsAndGetsBracketedTargets() throws Exception {
        ZoneResolver dns = new ZoneResolver(ZONE);
        List<String> t = resolver(dns, new Random(1)).resolve("pcscf.ims.lab", "udp", true).stream().map(Object::toString).toList();
        assertEquals(List.of("[fd00:1ab::1]:5060 (udp)", "[fd00:1ab::1]:5060 (tcp)"), t,
                "NAPTR → SRV → AAAA, the address in RFC 5952 form and brackets");
        assertTrue(dns.queries.contains("AAAA pcscf.ims.lab.") && !dns.queries.contains("A pcscf.ims.lab."),
                "an IPv6 gateway asks for AAAA only: " + dns.queries);
    }

    @Test
    void nothingFoundOrBadValuesSayWhy() throws Exception {
        PcscfResolver r = resolver(new ZoneResolver(ZONE), new Random(1));
        PcscfResolver.NotFound e = assertThrows(PcscfResolver.NotFound.class, () -> r.resolve("nowhere.ims.lab", "udp", false));
        assertTrue(e.getMessage().contains("no P-CSCF found for 'nowhere.ims.lab' (the test zone)"), e.getMessage());
        // an SRV target "." says the service is not offered there: nothing is left
        assertThrows(PcscfResolver.NotFound.class, () -> r.resolve("gone.ims.lab", "udp", false));
        e = assertThrows(PcscfResolver.NotFound.class, () -> r.resolve("bad name!:5060", "udp", false));
        assertTrue(e.getMessage().contains("neither HOST:PORT nor a domain name"), e.getMessage());
        e = assertThrows(PcscfResolver.NotFound.class, () -> r.resolve("pcscf.ims.lab:99999", "udp", false));
        assertTrue(e.getMessage().contains("bad port"), e.getMessage());
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> PcscfResolver.of("dns.example"));
        assertTrue(bad.getMessage().contains("lab.ims.dns wants an IP address"), bad.getMessage());
        assertNotNull(PcscfResolver.of("127.0.0.1:5353"));
        assertNotNull(PcscfResolver.of("[::1]:53"));
    }

    private static Pcscf pcscf(String proxy, ZoneResolver dns) {
        GatewayProperties props = new GatewayProperties();
        props.getIms().setProxy(proxy);
        return new Pcscf(props, resolver(dns, new Random(3)));
    }

    @Test
    void failoverMovesToTheNextTargetOnceAndTellsTheListeners() throws Exception {
        Pcscf p = pcscf("pool.ims.lab", new ZoneResolver(ZONE));
        List<String> told = new java.util.ArrayList<>();
        p.onFailover((failed, why) -> told.add(failed + " " + why));
        PcscfResolver.Target dead = p.current();
        assertEquals("127.0.0.2:5059 (udp)", dead.toString());
        assertTrue(p.isPcscfAddress("127.0.0.1") && p.isPcscfAddress("127.0.0.2"), "both SRV targets are the P-CSCF's");
        assertFalse(p.isPcscfAddress("127.0.0.3"));
        // the source check with ports: UDP from a target's own port only, TCP/TLS from any port of a target's address
        assertTrue(p.isPcscf("127.0.0.1", 5060, "udp"));
        assertFalse(p.isPcscf("127.0.0.1", 5059, "udp"), "127.0.0.1:5059 is not a target (only 127.0.0.2:5059 is)");
        assertTrue(p.isPcscf("127.0.0.2", 5059, "UDP"));
        assertTrue(p.isPcscf("127.0.0.1", 40123, "tcp"));
        assertFalse(p.isPcscf("127.0.0.3", 5060, "tcp"));
        assertTrue(p.failover(dead, "did not answer"));
        assertEquals("127.0.0.1:5060 (udp)", p.current().toString());
        // a second REGISTER that timed out on the dead one too does not move on again
        assertTrue(p.failover(dead, "did not answer"));
        assertEquals("127.0.0.1:5060 (udp)", p.current().toString());
        assertEquals(List.of("127.0.0.2:5059 (udp) did not answer"), told);
        // after the last target, the set is resolved again and starts over at its first
        assertTrue(p.failover(p.current(), "answered 503"));
        assertEquals("127.0.0.2:5059 (udp)", p.current().toString());
    }

    @Test
    void aSingleTargetHasNothingToFailOverTo() throws Exception {
        Pcscf p = pcscf("127.0.0.1:5060", new ZoneResolver(ZONE));
        assertFalse(p.failover(p.current(), "did not answer"));
        assertEquals("udp", p.transport());
        assertTrue(p.isPcscfAddress("127.0.0.1"));
    }

    @Test
    void aNameNotFoundAtStartIsLookedUpAgainLater() throws Exception {
        Pcscf p = pcscf("nowhere.ims.lab", new ZoneResolver(ZONE));
        IllegalStateException e = assertThrows(IllegalStateException.class, p::current);
        assertTrue(e.getMessage().contains("no P-CSCF found for 'nowhere.ims.lab'"), e.getMessage());
        assertEquals("udp", p.transport(), "lab.ims.transport while nothing is found");
    }

    /** A RandomGenerator whose every draw is one value. */
    private record FixedDraw(int value) implements RandomGenerator {
        @Override public long nextLong() { return value; }
        @Override public int nextInt(int bound) { return value; }
    }
}

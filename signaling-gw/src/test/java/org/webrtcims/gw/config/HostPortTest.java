package org.webrtcims.gw.config;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** host:port with IPv6 references in brackets (RFC 3986 §3.2.2, RFC 3261 §25.1), the form of every address option. */
class HostPortTest {
    @Test
    void ipv4AndNamesSplitAtTheirOneColon() {
        assertEquals(new HostPort("127.0.0.1", 5060), HostPort.parse("127.0.0.1:5060"));
        assertEquals(new HostPort("pcscf.ims.lab", 5061), HostPort.parse(" pcscf.ims.lab:5061 "));
        assertEquals("127.0.0.1:5060", HostPort.parse("127.0.0.1:5060").toString());
    }

    @Test
    void anIpv6AddressIsBracketedBeforeItsPortAndBareInHost() {
        HostPort hp = HostPort.parse("[fd00:1ab::1]:5060");
        assertEquals("fd00:1ab::1", hp.host(), "host() is what a socket takes: no brackets");
        assertEquals(5060, hp.port());
        assertEquals("[fd00:1ab::1]:5060", hp.toString(), "written back as RFC 3261's IPv6reference");
        assertEquals("[::1]:2223", new HostPort("::1", 2223).toString(), "a bare IPv6 host is bracketed when written with a port");
        assertEquals("[::1]:2223", new HostPort("[::1]", 2223).toString(), "a bracketed host is not bracketed twice");
        assertEquals(2223, HostPort.parse("[::1]:2223").socketAddress().getPort());
        assertTrue(HostPort.parse("[::1]:2223").socketAddress().getAddress().isLoopbackAddress(), "[::1] is the IPv6 loopback");
    }

    @Test
    void ambiguousOrMalformedValuesAreRefusedWithTheValueInTheMessage() {
        for (String bad : new String[] {"fd00::1:5060", "::1", "[fd00::1]", "[fd00::1]5060", "[127.0.0.1]:5060", "[]:5060",
                "127.0.0.1", "127.0.0.1:", ":5060", "host:port", "127.0.0.1:70000", "", "[fd00::1:5060"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HostPort.parse(bad),
                    "'" + bad + "' must be refused");
            assertTrue(e.getMessage().contains("'" + bad + "'"), "the message quotes the value: " + e.getMessage());
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostPort.parse("fd00::1:5060")).getMessage().contains("brackets"),
                "a bare IPv6 address with a port is told to use brackets");
        assertThrows(IllegalArgumentException.class, () -> HostPort.parse(null));
    }

    @Test
    void helpersTellHostsWithPortsAndIpv6References() {
        assertTrue(HostPort.hasPort("127.0.0.1:5060"));
        assertTrue(HostPort.hasPort("[fd00::1]:5060"));
        assertFalse(HostPort.hasPort("fd00::1"), "a bare IPv6 address has no port");
        assertFalse(HostPort.hasPort("[fd00::1]"));
        assertFalse(HostPort.hasPort("127.0.0.9"));
        assertEquals("[fd00::1]", HostPort.uriHost("fd00::1"));
        assertEquals("[fd00::1]", HostPort.uriHost("[fd00::1]"));
        assertEquals("127.0.0.1", HostPort.uriHost("127.0.0.1"));
        assertEquals("fd00::1", HostPort.bare("[fd00::1]"));
        assertTrue(HostPort.isIpv6("[fd00::1]") && HostPort.isIpv6("::1"));
        assertFalse(HostPort.isIpv6("ims.lab"));
    }

    @Test
    void addressesAreWrittenAsRfc5952Says() throws Exception {
        String[][] cases = {{"fd00:1ab:0:0:0:0:0:1", "fd00:1ab::1"}, {"0:0:0:0:0:0:0:1", "::1"}, {"0:0:0:0:0:0:0:0", "::"},
                {"2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"}, {"2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"},
                {"FD00:00AB:0:0:1:0:0:0", "fd00:ab:0:0:1::"}, {"127.0.0.1", "127.0.0.1"}};
        for (String[] c : cases) {
            assertEquals(c[1], HostPort.text(java.net.InetAddress.getByName(c[0])), "RFC 5952 form of " + c[0]);
        }
    }
}

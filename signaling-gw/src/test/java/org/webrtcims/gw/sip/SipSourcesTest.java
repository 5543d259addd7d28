package org.webrtcims.gw.sip;

import org.junit.jupiter.api.Test;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.net.LocalSockets;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The P-CSCF's address AND port, not its address alone (issue #29: a forged INVITE from its IP but another port). */
class SipSourcesTest {
    @Test
    void byDefaultOnlyTheProxysAddressAndPortOverUdp() {
        GatewayProperties props = new GatewayProperties();
        props.getIms().setProxy("127.0.0.1:5060");
        SipSources s = new SipSources(props, new LocalSockets());
        assertTrue(s.accepts("udp", "127.0.0.1", 5060), "the P-CSCF itself");
        assertFalse(s.accepts("udp", "127.0.0.1", 40123), "the P-CSCF's address from another port is a forgery");
        assertFalse(s.accepts("udp", "127.0.0.2", 5060), "another address");
        assertFalse(s.accepts("udp", null, 5060));
        assertFalse(s.accepts("tcp", "127.0.0.1", 1), "a TCP connection from a port no P-CSCF process holds");
    }

    @Test
    void anIpv6ProxyIsMatchedByAddressAndPortWhateverItsSpelling() {
        GatewayProperties props = new GatewayProperties();
        props.getSip().setHost("fd00:1ab::2");
        props.getIms().setProxy("[fd00:1ab::1]:5060");
        SipSources s = new SipSources(props, new LocalSockets());
        assertTrue(s.accepts("udp", "fd00:1ab::1", 5060), "the P-CSCF as the stack reports a source (no brackets)");
        assertTrue(s.accepts("udp", "fd00:1ab:0:0:0:0:0:1", 5060), "Java's uncompressed spelling of the same address");
        assertTrue(s.accepts("udp", "[FD00:1AB::1]", 5060), "brackets and case do not matter");
        assertFalse(s.accepts("udp", "fd00:1ab::1", 5061), "another port of the P-CSCF's address is refused");
        assertFalse(s.accepts("udp", "fd00:1ab::3", 5060), "another address");
        assertTrue(s.describe().contains("[fd00:1ab:0:0:0:0:0:1]:5060"), "logged bracketed: " + s.describe());
        props.getSip().setTrustedSources(List.of("fd00:1ab::9", "[fd00:1ab::1]:5060"));
        SipSources any = new SipSources(props, new LocalSockets());
        assertTrue(any.accepts("udp", "fd00:1ab::9", 40000), "a bare IPv6 entry has no port: every port of it");
        assertFalse(any.accepts("udp", "fd00:1ab::1", 40000));
    }

    @Test
    void aBareHostEntryOpensEveryPortOfItOnly() {
        GatewayProperties props = new GatewayProperties();
        props.getSip().setTrustedSources(List.of("127.0.0.1:5060", " 127.0.0.9 "));
        SipSources s = new SipSources(props, new LocalSockets());
        assertTrue(s.accepts("udp", "127.0.0.9", 40000));
        assertTrue(s.accepts("tcp", "127.0.0.9", 40001));
        assertFalse(s.accepts("udp", "127.0.0.1", 40000));
        assertTrue(s.describe().contains("127.0.0.9 (any port)"), s.describe());
    }

    @Test
    void aTcpConnectionFromTheProcessThatListensAtTheProxysPortIsTheProxys() throws Exception {
        // this JVM plays both: the "P-CSCF" listening at proxy:port and opening a connection to the "gateway"
        try (ServerSocket proxy = new ServerSocket(0, 5, java.net.InetAddress.getByName("127.0.0.1"));
             ServerSocket gw = new ServerSocket(0, 5, java.net.InetAddress.getByName("127.0.0.1"));
             Socket fromProxy = new Socket("127.0.0.1", gw.getLocalPort());
             Socket accepted = gw.accept()) {
            GatewayProperties props = new GatewayProperties();
            props.getIms().setProxy("127.0.0.1:" + proxy.getLocalPort());
            props.getSip().setHost("127.0.0.1");
            props.getSip().setPort(gw.getLocalPort());
            SipSources s = new SipSources(props, new LocalSockets());
            int ephemeral = ((InetSocketAddress) accepted.getRemoteSocketAddress()).getPort();
            assertTrue(s.accepts("tcp", "127.0.0.1", ephemeral), "the P-CSCF's process's connection from port " + ephemeral);
            assertFalse(s.accepts("udp", "127.0.0.1", ephemeral), "over UDP the port must be the P-CSCF's own");
        }
    }
}

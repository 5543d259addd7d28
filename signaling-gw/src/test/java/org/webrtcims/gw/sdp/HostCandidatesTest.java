package org.webrtcims.gw.sdp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HostCandidatesTest {
    @Test
    void oneAddressForEveryComponentAndTransportOfOneInterface() {
        String chromium = "v=0\r\ns=-\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"
                + "a=candidate:1 1 udp 2122260223 198.18.0.2 40000 typ host generation 0 network-id 1\r\n"
                + "a=candidate:2 1 tcp 1518280447 198.18.0.2 9 typ host tcptype active generation 0 network-id 1\r\n"
                + "a=candidate:3 1 udp 1686052607 203.0.113.7 40000 typ srflx raddr 198.18.0.2 rport 40000\r\n"
                + "a=candidate:4 1 udp 41885439 198.18.1.1 50000 typ relay raddr 203.0.113.7 rport 40000\r\n"
                + "m=video 9 UDP/TLS/RTP/SAVPF 96\r\n"
                + "a=candidate:1 1 udp 2122260223 198.18.0.2 40002 typ host generation 0 network-id 1\r\n";
        assertEquals(Set.of("198.18.0.2"), HostCandidates.addresses(chromium), "srflx and relay candidates are not host addresses");
    }

    @Test
    void eachInterfaceAndEachMdnsNameCounts() {
        String fourInterfaces = "v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"
                + "a=candidate:1 1 udp 2122260223 198.18.16.1 40000 typ host generation 0\r\n"
                + "a=candidate:2 1 udp 2122194687 198.18.0.1 40001 typ host generation 0\r\n"
                + "a=candidate:3 1 udp 2122129151 198.18.32.1 40002 typ host generation 0\r\n"
                + "a=candidate:4 1 udp 2122063615 FD00::1 40003 typ host generation 0\r\n";
        assertEquals(List.of("198.18.16.1", "198.18.0.1", "198.18.32.1", "fd00::1"),
                List.copyOf(HostCandidates.addresses(fourInterfaces)));
        String firefoxMdns = "v=0\nm=audio 9 UDP/TLS/RTP/SAVPF 109\n"
                + "a=candidate:0 1 UDP 2122252543 69e5fe03-64d7-4cce-8f97-c85af77f7944.local 32933 typ host\n"
                + "a=candidate:1 1 TCP 2105524479 69e5fe03-64d7-4cce-8f97-c85af77f7944.local 9 typ host tcptype active\n"
                + "a=candidate:0 2 UDP 2122252542 69e5fe03-64d7-4cce-8f97-c85af77f7944.local 52693 typ host\n";
        assertEquals(Set.of("69e5fe03-64d7-4cce-8f97-c85af77f7944.local"), HostCandidates.addresses(firefoxMdns));
    }

    @Test
    void noneWithoutHostCandidates() {
        assertEquals(Set.of(), HostCandidates.addresses(null));
        assertEquals(Set.of(), HostCandidates.addresses("v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=candidate:x 1 udp 1 198.18.1.1 5 typ relay\r\na=candidate:bad\r\n"));
    }
}

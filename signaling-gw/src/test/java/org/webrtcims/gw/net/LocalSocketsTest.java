package org.webrtcims.gw.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/** Which process holds a socket, from the kernel's tables: the check behind the SIP source and DTMF sender checks. */
class LocalSocketsTest {
    @Test
    void theKernelsAddressFormIsRead() throws Exception {
        assertEquals(new InetSocketAddress("127.0.0.1", 0x08AF), LocalSockets.address("0100007F:08AF"));
        assertEquals(new InetSocketAddress("127.0.0.1", 5060), LocalSockets.address("0000000000000000FFFF00000100007F:13C4"),
                "an IPv4-mapped IPv6 socket is the IPv4 address");
        assertEquals(new InetSocketAddress("::1", 5070), LocalSockets.address("00000000000000000000000001000000:13CE"));
    }

    @Test
    void twoSocketsOfThisProcessAreFoundTogether() throws Exception {
        assumeLinuxProc();
        try (DatagramSocket service = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0));
             DatagramSocket sender = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            LocalSockets s = new LocalSockets();
            assertTrue(s.sameProcess("udp", (InetSocketAddress) sender.getLocalSocketAddress(), null,
                    (InetSocketAddress) service.getLocalSocketAddress()), "this JVM holds both sockets");
            assertFalse(s.sameProcess("udp", new InetSocketAddress("127.0.0.1", 1), null,
                    (InetSocketAddress) service.getLocalSocketAddress()), "no socket at port 1: no");
        }
    }

    @Test
    void aSenderHeldByAnotherProcessThanTheServiceIsRefused(@TempDir Path proc) throws Exception {
        // rtpengine (pid 10) holds the ng socket 127.0.0.1:2223 (inode 111) and its DTMF sender 127.0.0.1:40000 (222);
        // a forger (pid 20) sends from 127.0.0.1:40001 (333)
        Files.createDirectories(proc.resolve("net"));
        Files.writeString(proc.resolve("net/udp"), """
                  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops
                   0: 0100007F:08AF 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 111 2 0 0
                   1: 0100007F:9C40 0100007F:08B0 01 00000000:00000000 00:00000000 00000000     0        0 222 2 0 0
                   2: 0100007F:9C41 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 333 2 0 0
                """);
        link(proc, 10, 3, 111);
        link(proc, 10, 4, 222);
        link(proc, 20, 3, 333);
        LocalSockets s = new LocalSockets(proc);
        InetSocketAddress ng = new InetSocketAddress("127.0.0.1", 2223);
        assertTrue(s.sameProcess("udp", new InetSocketAddress("127.0.0.1", 40000), null, ng), "rtpengine's own sender");
        assertFalse(s.sameProcess("udp", new InetSocketAddress("127.0.0.1", 40001), null, ng),
                "a forger on the same address but another process must be refused");
        assertFalse(s.sameProcess("udp", new InetSocketAddress("127.0.0.2", 40000), null, ng), "another address");
        assertFalse(s.sameProcess("tcp", new InetSocketAddress("127.0.0.1", 40000), null, ng), "no such TCP socket");
    }

    @Test
    void aWorkerOfTheSameForkingServerCountsAnotherInstanceOfItDoesNot(@TempDir Path proc) throws Exception {
        // Kamailio: main (5) forks a worker (30) that opens the TCP connection 127.0.0.1:41000 → gateway 127.0.0.1:5070,
        // and tcp_main (31) that holds the listening socket 127.0.0.1:5060; pid 40 is another kamailio the same shell started
        Files.createDirectories(proc.resolve("net"));
        Files.writeString(proc.resolve("net/tcp"), """
                  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
                   0: 0100007F:13C4 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 500 1 0
                   1: 0100007F:A028 0100007F:13CE 01 00000000:00000000 00:00000000 00000000     0        0 501 1 0
                   2: 0100007F:A029 0100007F:13CE 01 00000000:00000000 00:00000000 00000000     0        0 502 1 0
                """);
        process(proc, 2, 1, "/bin/bash");
        process(proc, 5, 2, "/usr/sbin/kamailio");
        process(proc, 30, 5, "/usr/sbin/kamailio");
        process(proc, 31, 5, "/usr/sbin/kamailio");
        process(proc, 40, 2, "/usr/sbin/kamailio");
        link(proc, 31, 3, 500);
        link(proc, 30, 7, 501);
        link(proc, 40, 3, 502);
        LocalSockets s = new LocalSockets(proc);
        InetSocketAddress gw = new InetSocketAddress("127.0.0.1", 5070);
        InetSocketAddress pcscf = new InetSocketAddress("127.0.0.1", 5060);
        assertTrue(s.sameProcess("tcp", new InetSocketAddress("127.0.0.1", 41000), gw, pcscf),
                "the worker's connection belongs to the P-CSCF (same main process, same executable)");
        assertFalse(s.sameProcess("tcp", new InetSocketAddress("127.0.0.1", 41001), gw, pcscf),
                "another kamailio started beside it is not the P-CSCF");
    }

    private static void process(Path proc, int pid, int ppid, String exe) throws Exception {
        Path dir = Files.createDirectories(proc.resolve(String.valueOf(pid)));
        Files.writeString(dir.resolve("status"), "Name:\tx\nPPid:\t" + ppid + "\n");
        Files.createSymbolicLink(dir.resolve("exe"), Path.of(exe));
    }

    private static void link(Path proc, int pid, int fd, long inode) throws Exception {
        Path dir = Files.createDirectories(proc.resolve(pid + "/fd"));
        Files.createSymbolicLink(dir.resolve(String.valueOf(fd)), Path.of("socket:[" + inode + "]"));
    }

    private static void assumeLinuxProc() {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/net/udp")), "needs Linux /proc");
    }
}

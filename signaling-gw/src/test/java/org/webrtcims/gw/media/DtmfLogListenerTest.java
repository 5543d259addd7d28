package org.webrtcims.gw.media;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DtmfLogListenerTest {
    private static void send(int port, String text) throws Exception {
        try (DatagramSocket s = new DatagramSocket()) {
            byte[] b = text.getBytes(StandardCharsets.UTF_8);
            s.send(new DatagramPacket(b, b.length, InetAddress.getLoopbackAddress(), port));
        }
    }

    @Test
    void deliversEachDtmfDatagramAndSkipsGarbage() throws Exception {
        BlockingQueue<DtmfLogEvent> got = new LinkedBlockingQueue<>();
        try (DtmfLogListener l = DtmfLogListener.start(new InetSocketAddress("127.0.0.1", 0), a -> true, got::add)) {
            send(l.port(), "garbage");
            send(l.port(), DtmfLogEventTest.RECORDED);
            assertEquals(new DtmfLogEvent("exp-1795445384", "B", 5, 140), got.poll(5, TimeUnit.SECONDS));
            assertEquals(null, got.poll(200, TimeUnit.MILLISECONDS));
        }
    }

    @Test
    void aDatagramFromASenderThatIsNotRtpenginesIsDropped() throws Exception {
        BlockingQueue<DtmfLogEvent> got = new LinkedBlockingQueue<>();
        try (DatagramSocket rtpengine = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0));
             DatagramSocket forger = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0));
             DtmfLogListener l = DtmfLogListener.start(new InetSocketAddress("127.0.0.1", 0),
                     a -> a.getPort() == rtpengine.getLocalPort(), got::add)) {
            byte[] b = DtmfLogEventTest.RECORDED.getBytes(StandardCharsets.UTF_8);
            forger.send(new DatagramPacket(b, b.length, InetAddress.getLoopbackAddress(), l.port()));
            assertEquals(null, got.poll(300, TimeUnit.MILLISECONDS), "a forged datagram must not become a digit");
            rtpengine.send(new DatagramPacket(b, b.length, InetAddress.getLoopbackAddress(), l.port()));
            assertEquals(new DtmfLogEvent("exp-1795445384", "B", 5, 140), got.poll(5, TimeUnit.SECONDS),
                    "the datagram from the accepted sender is delivered");
        }
    }

    @Test
    void aTakenPortFailsAtStartWithTheAddress() throws Exception {
        try (DatagramSocket taken = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            UncheckedIOException e = assertThrows(UncheckedIOException.class,
                    () -> DtmfLogListener.start(new InetSocketAddress("127.0.0.1", taken.getLocalPort()), a -> true, ev -> { }));
            assertEquals(true, e.getMessage().contains("udp:127.0.0.1:" + taken.getLocalPort()), e.getMessage());
        }
    }

    @Test
    void offListensToNothing() {
        try (DtmfLogListener l = DtmfLogListener.off()) {
            assertEquals(-1, l.port());
        }
    }
}

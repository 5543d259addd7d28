package org.webrtcims.gw.media;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Receives rtpengine's DTMF log (`--dtmf-log-dest`): one JSON datagram per detected RFC 4733 event, handed
 * to the consumer on the listener's own thread. rtpengine sends, never waits: a slow consumer only delays
 * later events.
 */
public final class DtmfLogListener implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DtmfLogListener.class);

    private final DatagramSocket socket;
    private final Thread thread;

    /** Whether a datagram from this address:port comes from rtpengine (docs/security.md "DTMF from rtpengine"). */
    private final java.util.function.Predicate<InetSocketAddress> sender;

    private DtmfLogListener(DatagramSocket socket, java.util.function.Predicate<InetSocketAddress> sender,
                            Consumer<DtmfLogEvent> consumer) {
        this.socket = socket;
        this.sender = sender;
        if (socket == null) {
            this.thread = null;
            return;
        }
        this.thread = new Thread(() -> receive(consumer), "dtmf-log");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** A listener that listens to nothing (the gateway was told no DTMF log address). */
    public static DtmfLogListener off() {
        return new DtmfLogListener(null, a -> false, ev -> { });
    }

    /**
     * Binds the address (fails at once when it is taken) and starts receiving; a datagram is taken only when
     * {@code sender} accepts its source (rtpengine's socket), others are dropped and logged.
     */
    public static DtmfLogListener start(InetSocketAddress address, java.util.function.Predicate<InetSocketAddress> sender,
                                        Consumer<DtmfLogEvent> consumer) {
        try {
            DatagramSocket s = new DatagramSocket(address);
            log.info("DTMF log of rtpengine received on udp:{}:{}", address.getHostString(), s.getLocalPort());
            return new DtmfLogListener(s, sender, consumer);
        } catch (SocketException e) {
            throw new UncheckedIOException("cannot listen for rtpengine's DTMF log on udp:" + address.getHostString()
                    + ":" + address.getPort() + ": " + e.getMessage(), e);
        }
    }

    /** The bound UDP port, -1 when off. */
    public int port() { return socket == null ? -1 : socket.getLocalPort(); }

    private void receive(Consumer<DtmfLogEvent> consumer) {
        byte[] buf = new byte[8192];
        while (!socket.isClosed()) {
            DatagramPacket p = new DatagramPacket(buf, buf.length);
            try {
                socket.receive(p);
            } catch (IOException e) {
                if (!socket.isClosed()) log.warn("DTMF log receive failed: {}", e.getMessage());
                continue;
            }
            InetSocketAddress from = (InetSocketAddress) p.getSocketAddress();
            if (!sender.test(from)) {
                log.warn("DTMF log datagram from {}:{} dropped: not rtpengine's socket", from.getHostString(), from.getPort());
                continue;
            }
            String text = new String(p.getData(), p.getOffset(), p.getLength(), StandardCharsets.UTF_8);
            DtmfLogEvent.parse(text).ifPresentOrElse(ev -> {
                try {
                    consumer.accept(ev);
                } catch (RuntimeException e) {
                    log.warn("DTMF event {} not delivered", ev, e);
                }
            }, () -> log.debug("not a DTMF record: {}", text));
        }
    }

    @Override
    public void close() {
        if (socket == null) return;
        socket.close();
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

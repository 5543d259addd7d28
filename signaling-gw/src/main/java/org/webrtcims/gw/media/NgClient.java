package org.webrtcims.gw.media;

import org.webrtcims.gw.metrics.GatewayMetrics;
import org.webrtcims.gw.metrics.WarmupCalls;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.UUID;
import java.net.SocketTimeoutException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * rtpengine ng protocol over UDP: datagram {@code "<cookie> <bencoded dict>"}, reply with the same cookie.
 * Each command has a socket of its own, connected to rtpengine, and the thread that sends it reads its reply
 * there: no receiver thread, so a reply costs no hand-off between threads (issue #26: on a busy host each
 * wake-up of another thread is a wait for the scheduler). Concurrent commands are independent (one socket
 * each), so they may be answered in any order. On timeout the identical datagram (same cookie) is resent,
 * which lets rtpengine answer from its reply cache instead of executing twice.
 */
public class NgClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NgClient.class);
    private static final int MAX_DATAGRAM = 65535;

    private final InetSocketAddress server;
    private final Duration timeout;
    private final int attempts;
    /** The sockets of the commands waiting for their reply now: close() ends their wait. */
    private final Set<DatagramSocket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    /** Random prefix keeps cookies unique across gateway restarts (rtpengine caches replies by cookie). */
    private final String cookiePrefix = UUID.randomUUID().toString().substring(0, 8);
    private final AtomicLong counter = new AtomicLong();
    /** A reply buffer per thread: a command's thread reads its own reply, at most one at a time. */
    private static final ThreadLocal<byte[]> BUFFER = ThreadLocal.withInitial(() -> new byte[MAX_DATAGRAM]);

    private final GatewayMetrics metrics;
    /** The start-up warm-up's calls, whose commands the meters leave out. */
    private final WarmupCalls warmups;

    public NgClient(InetSocketAddress server, Duration timeout, int attempts) {
        this(server, timeout, attempts, GatewayMetrics.none(), new WarmupCalls());
    }

    /**
     * As above; each command's round trip and failure goes to {@code metrics} (`gw_ng_latency`, `gw_ng_errors`),
     * except a command of one of the start-up warm-up's calls ({@code warmups}).
     */
    public NgClient(InetSocketAddress server, Duration timeout, int attempts, GatewayMetrics metrics, WarmupCalls warmups) {
        this.metrics = metrics;
        this.warmups = warmups;
        if (attempts < 1 || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("attempts must be >= 1 and timeout > 0");
        }
        this.server = server;
        this.timeout = timeout;
        this.attempts = attempts;
        // fail at start, not at the first call, when no socket toward rtpengine can be had
        try (DatagramSocket probe = connected()) {
            log.debug("ng client toward {} from {}", server, probe.getLocalSocketAddress());
        }
    }

    /** rtpengine's ng address. */
    public InetSocketAddress server() { return server; }

    public Map<String, Object> send(Map<String, Object> command) throws NgException {
        long start = System.nanoTime();
        String name = String.valueOf(command.get("command"));
        boolean counted = !(command.get("call-id") instanceof String id && warmups.is(id)); // not the start-up warm-up's
        try {
            Map<String, Object> reply = exchange(command);
            if (counted) metrics.ngCommand(name, System.nanoTime() - start, null);
            else metrics.ngWarmup(name, System.nanoTime() - start);
            return reply;
        } catch (NgException e) {
            if (counted) metrics.ngCommand(name, System.nanoTime() - start, e.kind().name().toLowerCase().replace('_', '-'));
            throw e;
        }
    }

    /** A socket connected to rtpengine: the kernel drops datagrams from anyone else. */
    private DatagramSocket connected() {
        try {
            DatagramSocket socket = new DatagramSocket();
            socket.connect(server);
            return socket;
        } catch (SocketException e) {
            throw new IllegalStateException("cannot open ng socket toward " + server + ": " + e.getMessage(), e);
        }
    }

    private Map<String, Object> exchange(Map<String, Object> command) throws NgException {
        if (closed) throw new NgException(NgException.Kind.PROTOCOL, "ng client closed");
        String cookie = cookiePrefix + "_" + counter.incrementAndGet();
        byte[] payload = datagram(cookie, command);
        byte[] head = (cookie + " ").getBytes(StandardCharsets.US_ASCII);
        DatagramSocket socket;
        try {
            socket = connected();
        } catch (IllegalStateException e) {
            throw new NgException(NgException.Kind.TIMEOUT, e.getMessage());
        }
        open.add(socket);
        try {
            if (closed) throw new NgException(NgException.Kind.PROTOCOL, "ng client closed");
            for (int attempt = 1; attempt <= attempts; attempt++) {
                transmit(socket, payload, cookie, attempt);
                Map<String, Object> reply = awaitReply(socket, head, cookie);
                if (reply != null) return checkResult(reply);
                log.debug("ng {} {}: no reply within {} ms (attempt {}/{})",
                        command.get("command"), cookie, timeout.toMillis(), attempt, attempts);
            }
            throw new NgException(NgException.Kind.TIMEOUT, "no reply from rtpengine " + server + " to '"
                    + command.get("command") + "' after " + attempts + " attempts of " + timeout.toMillis() + " ms");
        } finally {
            open.remove(socket);
            socket.close();
        }
    }

    /**
     * The reply with this cookie, read on this thread within the timeout; null when none came. A datagram with
     * another cookie (a late duplicate answer to a retransmission) is skipped.
     */
    private Map<String, Object> awaitReply(DatagramSocket socket, byte[] head, String cookie) throws NgException {
        long deadline = System.nanoTime() + timeout.toNanos();
        byte[] buf = BUFFER.get();
        while (true) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) return null;
            DatagramPacket packet = new DatagramPacket(buf, buf.length);
            try {
                socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, left));
                socket.receive(packet);
            } catch (SocketTimeoutException e) {
                return null;
            } catch (PortUnreachableException e) {
                // rtpengine not listening (yet): wait out this attempt, as for a lost datagram
                sleepQuietly(deadline);
                return null;
            } catch (IOException e) {
                if (closed) throw new NgException(NgException.Kind.PROTOCOL, "ng client closed");
                log.warn("ng receive failed: {}", e.toString());
                sleepQuietly(deadline);
                return null;
            }
            int len = packet.getLength();
            if (len <= head.length || !Arrays.equals(buf, 0, head.length, head, 0, head.length)) {
                // Normal for a late duplicate answer to a retransmitted request.
                log.debug("ng reply for another cookie ignored while waiting for {}", cookie);
                continue;
            }
            try {
                Object decoded = Bencode.decode(Arrays.copyOfRange(buf, head.length, len));
                if (!(decoded instanceof Map<?, ?>)) {
                    throw new BencodeException("reply is not a dictionary");
                }
                @SuppressWarnings("unchecked")
                Map<String, Object> dict = (Map<String, Object>) decoded;
                return dict;
            } catch (BencodeException e) {
                throw new NgException(NgException.Kind.PROTOCOL, "bad ng reply from rtpengine: " + e.getMessage());
            }
        }
    }

    private static void sleepQuietly(long deadlineNanos) {
        long ms = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        if (ms <= 0) return;
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        closed = true;
        open.forEach(DatagramSocket::close);
    }

    private static byte[] datagram(String cookie, Map<String, Object> command) throws NgException {
        byte[] dict;
        try {
            dict = Bencode.encode(command);
        } catch (BencodeException e) {
            throw new NgException(NgException.Kind.PROTOCOL, "cannot encode ng command: " + e.getMessage());
        }
        byte[] head = (cookie + " ").getBytes(StandardCharsets.US_ASCII);
        byte[] out = Arrays.copyOf(head, head.length + dict.length);
        System.arraycopy(dict, 0, out, head.length, dict.length);
        if (out.length > MAX_DATAGRAM - 28) {
            throw new NgException(NgException.Kind.PROTOCOL, "ng command too large for UDP: " + out.length + " bytes");
        }
        return out;
    }

    private void transmit(DatagramSocket socket, byte[] payload, String cookie, int attempt) {
        try {
            socket.send(new DatagramPacket(payload, payload.length));
        } catch (IOException e) {
            // Typically ICMP port unreachable from an earlier datagram: rtpengine is down. Keep
            // retrying until the attempts are used up so the caller sees one TIMEOUT, not a mix.
            log.debug("ng send {} attempt {} failed: {}", cookie, attempt, e.toString());
        }
    }

    private static Map<String, Object> checkResult(Map<String, Object> reply) throws NgException {
        Object result = reply.get("result");
        if (result == null) {
            throw new NgException(NgException.Kind.PROTOCOL, "ng reply without 'result'");
        }
        if ("error".equals(result)) {
            Object reason = reply.get("error-reason");
            throw new NgException(NgException.Kind.ERROR_RESULT,
                    reason == null ? "rtpengine error without reason" : reason.toString());
        }
        if (!"ok".equals(result) && !"pong".equals(result)) {
            // e.g. "load limit": rtpengine refused the work without the "error" wording.
            Object message = reply.get("message");
            throw new NgException(NgException.Kind.ERROR_RESULT,
                    "rtpengine result '" + result + "'" + (message == null ? "" : ": " + message));
        }
        if (reply.get("warning") != null) {
            log.warn("rtpengine warning: {}", reply.get("warning"));
        }
        return reply;
    }
}

package org.webrtcims.gw.media;

import org.webrtcims.gw.metrics.GatewayMetrics;

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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * rtpengine ng protocol over UDP: datagram {@code "<cookie> <bencoded dict>"}, reply with the same cookie.
 * One socket and one receiver thread serve all callers; replies are matched to requests by cookie,
 * so concurrent requests may be answered in any order. On timeout the identical datagram (same
 * cookie) is resent, which lets rtpengine answer from its reply cache instead of executing twice.
 */
public class NgClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NgClient.class);
    private static final int MAX_DATAGRAM = 65535;

    private final InetSocketAddress server;
    private final Duration timeout;
    private final int attempts;
    private final DatagramSocket socket;
    private final Map<String, CompletableFuture<Map<String, Object>>> pending = new ConcurrentHashMap<>();
    /** Random prefix keeps cookies unique across gateway restarts (rtpengine caches replies by cookie). */
    private final String cookiePrefix = UUID.randomUUID().toString().substring(0, 8);
    private final AtomicLong counter = new AtomicLong();
    private final Thread receiver;

    private final GatewayMetrics metrics;

    public NgClient(InetSocketAddress server, Duration timeout, int attempts) {
        this(server, timeout, attempts, GatewayMetrics.none());
    }

    /** As above; each command's round trip and failure goes to {@code metrics} (`gw_ng_latency`, `gw_ng_errors`). */
    public NgClient(InetSocketAddress server, Duration timeout, int attempts, GatewayMetrics metrics) {
        this.metrics = metrics;
        if (attempts < 1 || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("attempts must be >= 1 and timeout > 0");
        }
        this.server = server;
        this.timeout = timeout;
        this.attempts = attempts;
        try {
            socket = new DatagramSocket();
            // connect() makes the kernel drop datagrams from anyone but rtpengine.
            socket.connect(server);
        } catch (SocketException e) {
            throw new IllegalStateException("cannot open ng socket toward " + server + ": " + e.getMessage(), e);
        }
        receiver = new Thread(this::receiveLoop, "ng-client-" + server.getPort());
        receiver.setDaemon(true);
        receiver.start();
    }

    /** rtpengine's ng address. */
    public InetSocketAddress server() { return server; }

    public Map<String, Object> send(Map<String, Object> command) throws NgException {
        long start = System.nanoTime();
        String name = String.valueOf(command.get("command"));
        try {
            Map<String, Object> reply = exchange(command);
            metrics.ngCommand(name, System.nanoTime() - start, null);
            return reply;
        } catch (NgException e) {
            metrics.ngCommand(name, System.nanoTime() - start, e.kind().name().toLowerCase().replace('_', '-'));
            throw e;
        }
    }

    private Map<String, Object> exchange(Map<String, Object> command) throws NgException {
        String cookie = cookiePrefix + "_" + counter.incrementAndGet();
        byte[] payload = datagram(cookie, command);
        CompletableFuture<Map<String, Object>> reply = new CompletableFuture<>();
        pending.put(cookie, reply);
        try {
            for (int attempt = 1; attempt <= attempts; attempt++) {
                transmit(payload, cookie, attempt);
                try {
                    return checkResult(reply.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
                } catch (TimeoutException e) {
                    log.debug("ng {} {}: no reply within {} ms (attempt {}/{})",
                            command.get("command"), cookie, timeout.toMillis(), attempt, attempts);
                } catch (ExecutionException e) {
                    throw (NgException) e.getCause();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new NgException(NgException.Kind.TIMEOUT, "interrupted waiting for rtpengine");
                }
            }
            throw new NgException(NgException.Kind.TIMEOUT, "no reply from rtpengine " + server + " to '"
                    + command.get("command") + "' after " + attempts + " attempts of " + timeout.toMillis() + " ms");
        } finally {
            pending.remove(cookie);
        }
    }

    @Override
    public void close() {
        socket.close();
        pending.values().forEach(f -> f.completeExceptionally(
                new NgException(NgException.Kind.PROTOCOL, "ng client closed")));
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

    private void transmit(byte[] payload, String cookie, int attempt) {
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

    private void receiveLoop() {
        byte[] buf = new byte[MAX_DATAGRAM];
        while (!socket.isClosed()) {
            DatagramPacket packet = new DatagramPacket(buf, buf.length);
            try {
                socket.receive(packet);
            } catch (PortUnreachableException e) {
                continue; // rtpengine not listening (yet); the sender's timeout handles it
            } catch (IOException e) {
                if (!socket.isClosed()) {
                    log.warn("ng receive failed: {}", e.toString());
                }
                continue;
            }
            dispatch(Arrays.copyOf(packet.getData(), packet.getLength()));
        }
    }

    private void dispatch(byte[] data) {
        int space = indexOf(data, (byte) ' ');
        if (space <= 0) {
            log.warn("ng reply without cookie ignored ({} bytes)", data.length);
            return;
        }
        String cookie = new String(data, 0, space, StandardCharsets.US_ASCII);
        CompletableFuture<Map<String, Object>> waiter = pending.get(cookie);
        if (waiter == null) {
            // Normal for a late duplicate answer to a retransmitted request.
            log.debug("ng reply for unknown cookie {} ignored", cookie);
            return;
        }
        try {
            Object decoded = Bencode.decode(Arrays.copyOfRange(data, space + 1, data.length));
            if (!(decoded instanceof Map<?, ?>)) {
                throw new BencodeException("reply is not a dictionary");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> dict = (Map<String, Object>) decoded;
            waiter.complete(dict);
        } catch (BencodeException e) {
            waiter.completeExceptionally(new NgException(NgException.Kind.PROTOCOL,
                    "bad ng reply from rtpengine: " + e.getMessage()));
        }
    }

    private static int indexOf(byte[] data, byte b) {
        for (int i = 0; i < data.length; i++) {
            if (data[i] == b) {
                return i;
            }
        }
        return -1;
    }
}

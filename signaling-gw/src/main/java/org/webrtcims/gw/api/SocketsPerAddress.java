package org.webrtcims.gw.api;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * `lab.api.ws-connections-per-address`: open browser WebSockets from one source address (the TCP peer, as for the
 * login limits). A socket beyond it is refused at its start: `error {code: too-many-connections}` and close code
 * 4429, before the session's handler sees it (the session and its calls are untouched). Loopback peers (127.0.0.0/8,
 * ::1) are not counted: the lab's load tools (loadgen's gateway mode, the soak, `./lab bench sipp|registrations`)
 * and HAProxy in front of the scale-out gateways all connect from there; 0 = no limit.
 */
final class SocketsPerAddress {
    static final String TICKET_ATTR = "lab.socketTicket";
    static final int CLOSE_CODE = 4429;

    private final int limit;
    private final Map<InetAddress, Integer> open = new HashMap<>();

    /** One counted socket; released once (its close, or a handshake that failed). */
    final class Ticket {
        final InetAddress address;
        private final AtomicBoolean released = new AtomicBoolean();

        Ticket(InetAddress address) { this.address = address; }

        void release() {
            if (released.compareAndSet(false, true)) closed(address);
        }
    }

    SocketsPerAddress(int limit) { this.limit = limit; }

    int limit() { return limit; }

    static boolean counted(InetAddress a) { return a != null && !a.isLoopbackAddress(); }

    /** A ticket when a socket from this address may open (counted from now on), else null. */
    synchronized Ticket tryOpen(InetAddress address) {
        if (limit <= 0 || !counted(address)) return new Ticket(null);
        int n = open.getOrDefault(address, 0);
        if (n >= limit) return null;
        open.put(address, n + 1);
        return new Ticket(address);
    }

    private synchronized void closed(InetAddress address) {
        if (address == null) return;
        open.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
    }

    synchronized int openFrom(InetAddress address) { return open.getOrDefault(address, 0); }
}

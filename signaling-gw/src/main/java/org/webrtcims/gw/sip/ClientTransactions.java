package org.webrtcims.gw.sip;

import javax.sip.ClientTransaction;
import javax.sip.header.CSeqHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The response handler of each client transaction the gateway sent, and the fork window of the INVITEs that
 * ended: the first 2xx ends an INVITE transaction (TransactionTerminated), and another fork's 2xx, which a proxy
 * forwards too, may come after it (RFC 3261 §13.2.2.4); the stack delivers it with the original transaction, and
 * call/OutgoingCalls must ACK and BYE it. So an ended INVITE's handler is kept for the fork window.
 */
final class ClientTransactions {
    private record Lingering(ResponseHandler handler, long untilNanos) { }

    private final Map<ClientTransaction, ResponseHandler> handlers = new ConcurrentHashMap<>();
    private final Map<ClientTransaction, Lingering> forkWindow = new ConcurrentHashMap<>();
    /** The same transactions in the order they ended, which is their expiry order (one fixed window): expired
     *  ones are taken off the head, so each termination costs O(1), not a scan of the window. */
    private final Queue<ClientTransaction> forkExpiry = new ConcurrentLinkedQueue<>();
    private final long windowNanos;
    private final LongSupplier nanoTime;

    ClientTransactions() {
        this(TimeUnit.SECONDS.toNanos(SipListeningStack.MAX_FORK_TIME_S), System::nanoTime);
    }

    /** A window of windowNanos on a clock of nanoTime (System.nanoTime: compared by difference). */
    ClientTransactions(long windowNanos, LongSupplier nanoTime) {
        this.windowNanos = windowNanos;
        this.nanoTime = nanoTime;
    }

    /** The handler of the responses to a transaction about to be sent. */
    void track(ClientTransaction ct, ResponseHandler handler) {
        handlers.put(ct, handler);
    }

    /**
     * The handler of a response to ct, or null: a final response takes it off, except an INVITE's 2xx
     * (retransmissions and other forks' 2xx until the transaction ends, then for the fork window).
     */
    ResponseHandler forResponse(ClientTransaction ct, Response response) {
        int status = response.getStatusCode();
        boolean invite2xx = status >= 200 && status < 300
                && response.getHeader(CSeqHeader.NAME) instanceof CSeqHeader cseq && Request.INVITE.equals(cseq.getMethod());
        ResponseHandler h = status >= 200 && !invite2xx ? handlers.remove(ct) : handlers.get(ct);
        if (h == null && invite2xx) { // another fork's 2xx after the transaction ended
            Lingering l = forkWindow.get(ct);
            if (l != null && nanoTime.getAsLong() - l.untilNanos() < 0) h = l.handler();
        }
        return h;
    }

    /** The handler of a transaction that timed out, taken off, or null. */
    ResponseHandler timedOut(ClientTransaction ct) {
        return handlers.remove(ct);
    }

    /** The transaction ended: its handler is taken off, an INVITE's kept for the fork window; expired ones go. */
    void ended(ClientTransaction ct) {
        ResponseHandler h = handlers.remove(ct);
        long now = nanoTime.getAsLong();
        for (ClientTransaction head; (head = forkExpiry.peek()) != null; ) {
            Lingering l = forkWindow.get(head);
            if (l != null && now - l.untilNanos() < 0) break;
            forkExpiry.poll();
            forkWindow.remove(head);
        }
        if (h != null && ct.getRequest() != null && Request.INVITE.equals(ct.getRequest().getMethod())) {
            forkWindow.put(ct, new Lingering(h, now + windowNanos));
            forkExpiry.add(ct);
        }
    }

    /** Transactions with a handler now: in flight, or ended INVITEs in the fork window. */
    int size() {
        return handlers.size() + forkWindow.size();
    }
}

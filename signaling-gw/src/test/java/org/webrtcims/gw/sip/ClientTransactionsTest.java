package org.webrtcims.gw.sip;

import org.junit.jupiter.api.Test;

import javax.sip.ClientTransaction;
import javax.sip.ResponseEvent;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

/** The handlers of the gateway's client transactions and the fork window of ended INVITEs, on a clock the test moves. */
class ClientTransactionsTest {
    private static final long WINDOW = 32_000_000_000L;
    private final AtomicLong clock = new AtomicLong(5_000L);
    private final ClientTransactions transactions = new ClientTransactions(WINDOW, clock::get);

    private static ClientTransaction transaction(String method) throws Exception {
        ClientTransaction ct = mock(ClientTransaction.class);
        Request r = SipFixtures.request(method, "ue1", "c-" + method, "f1", null, 1, null);
        when(ct.getRequest()).thenReturn(r);
        return ct;
    }

    /** A response with that status to ct's request. */
    private static Response response(ClientTransaction ct, int status) throws Exception {
        return SipFixtures.MESSAGES.createResponse(status, ct.getRequest());
    }

    private static ResponseHandler handler() {
        return new ResponseHandler() {
            @Override public void onResponse(ResponseEvent event) { }
            @Override public void onTimeout() { }
        };
    }

    @Test
    void aFinalResponseToANonInviteTakesTheHandlerOffAndAProvisionalDoesNot() throws Exception {
        ClientTransaction ct = transaction(Request.OPTIONS);
        ResponseHandler h = handler();
        transactions.track(ct, h);
        assertSame(h, transactions.forResponse(ct, response(ct, 100)), "a 100 reaches the handler");
        assertSame(h, transactions.forResponse(ct, response(ct, 200)), "the 200 reaches the handler");
        assertNull(transactions.forResponse(ct, response(ct, 200)), "a retransmitted 200 after the final one has no handler any more");
        assertEquals(0, transactions.size(), "nothing kept after a non-INVITE's final response");
    }

    @Test
    void anInvitesHandlerStaysFor2xxUntilTheForkWindowEnds() throws Exception {
        ClientTransaction ct = transaction(Request.INVITE);
        ResponseHandler h = handler();
        transactions.track(ct, h);
        assertSame(h, transactions.forResponse(ct, response(ct, 200)), "the first 2xx reaches the handler");
        assertSame(h, transactions.forResponse(ct, response(ct, 200)), "a 2xx retransmission or another fork's 2xx still does");
        transactions.ended(ct);
        clock.addAndGet(WINDOW - 1);
        assertSame(h, transactions.forResponse(ct, response(ct, 200)), "another fork's 2xx inside the fork window after the transaction ended");
        assertNull(transactions.forResponse(ct, response(ct, 486)), "a non-2xx final after the end has no handler");
        clock.addAndGet(1);
        assertNull(transactions.forResponse(ct, response(ct, 200)), "a 2xx once the fork window is over is dropped");
    }

    @Test
    void anEndedNonInviteIsNotKeptAndExpiredInvitesGoAtTheNextEnd() throws Exception {
        ClientTransaction options = transaction(Request.OPTIONS);
        transactions.track(options, handler());
        transactions.ended(options);
        assertNull(transactions.forResponse(options, response(options, 200)), "only an INVITE lingers after its end");
        assertEquals(0, transactions.size(), "an ended OPTIONS leaves nothing behind");

        ClientTransaction first = transaction(Request.INVITE);
        ClientTransaction second = transaction(Request.INVITE);
        transactions.track(first, handler());
        transactions.track(second, handler());
        transactions.ended(first);
        clock.addAndGet(WINDOW / 2);
        transactions.ended(second);
        assertEquals(2, transactions.size(), "both INVITEs inside their fork window");
        clock.addAndGet(WINDOW / 2);
        transactions.ended(transaction(Request.BYE)); // any later end sweeps the expired head
        assertEquals(1, transactions.size(), "the first INVITE's window is over and it was dropped, the second's is not");
        assertNotNull(transactions.forResponse(second, response(second, 200)), "the second INVITE still takes another fork's 2xx");
    }

    @Test
    void aTimeoutTakesTheHandlerOffOnce() throws Exception {
        ClientTransaction ct = transaction(Request.REGISTER);
        ResponseHandler h = handler();
        transactions.track(ct, h);
        assertSame(h, transactions.timedOut(ct), "the timeout goes to the transaction's handler");
        assertNull(transactions.timedOut(ct), "and only once");
        transactions.ended(ct);
        assertEquals(0, transactions.size(), "a timed-out transaction that ends leaves nothing behind");
    }

    @Test
    void aTransactionWithoutRequestOrHandlerEndsWithoutError() throws Exception {
        ClientTransaction bare = mock(ClientTransaction.class);
        transactions.track(bare, handler());
        transactions.ended(bare);
        transactions.ended(transaction(Request.INVITE)); // never tracked: no handler to keep
        assertEquals(0, transactions.size(), "nothing to keep without a request or a handler");
    }
}

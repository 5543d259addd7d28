package org.webrtcims.gw.call;

import org.junit.jupiter.api.Test;

import javax.sip.ServerTransaction;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.Mockito.mock;

/** A call's RFC 3312 state: the two segments, alerting, and the UPDATE held until the local segment is known. */
class QosStateTest {
    @Test
    void bothSegmentsAreMetOnlyWithOurMediaUpAndThePeerReportingSendrecv() {
        QosState q = new QosState();
        assertFalse(q.on());
        assertEquals("none", q.remote(), "until the peer says otherwise its segment is not met");
        q.use(true, "none");
        q.localSegmentMet();
        assertFalse(q.bothMet(), "the peer's segment is still none");
        q.peerStatus("sendrecv");
        assertTrue(q.bothMet());
        assertFalse(q.alerted());
        q.markAlerted();
        assertTrue(q.alerted());
    }

    @Test
    void aHeldUpdateLeavesOnlyWhenThatOneIsAnswered() {
        QosState q = new QosState();
        ServerTransaction held = mock(ServerTransaction.class);
        ServerTransaction other = mock(ServerTransaction.class);
        q.holdUpdate(held);
        q.updateAnswered(other);
        assertSame(held, q.pendingUpdate(), "answering another UPDATE keeps the held one");
        q.updateAnswered(held);
        assertNull(q.pendingUpdate());
    }
}

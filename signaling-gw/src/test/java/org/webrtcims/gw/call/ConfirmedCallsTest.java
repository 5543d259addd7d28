package org.webrtcims.gw.call;

import org.junit.jupiter.api.Test;
import org.mockito.InOrder;

import javax.sip.message.Response;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verifyNoMoreInteractions;

/** What a confirmed call starts, MO and MT: CONFIRMED with its set-up time, then its watches and its session timer. */
class ConfirmedCallsTest {
    private final MediaStartWatch mediaStart = mock(MediaStartWatch.class);
    private final MaxCallLength maxLength = mock(MaxCallLength.class);
    private final SessionTimers sessionTimers = mock(SessionTimers.class);
    private final ConfirmedCalls confirmed = new ConfirmedCalls(mediaStart, maxLength, sessionTimers);

    @Test
    void anMoCallsTwoHundredStartsTheWatchesAndTheSessionTimerFromIt() {
        Call c = new Call("mo-1", Direction.MO, "tok", "alice", "ue1@ims.lab", "ft", CallState.EARLY);
        Response ok = mock(Response.class);
        confirmed.mo(c);
        assertEquals(CallState.CONFIRMED, c.state(), "the 2xx confirms the call");
        assertNotNull(c.setupMs(), "its set-up time is taken");
        // issue #26: nothing is started before the answer went to the browser (OutgoingCalls), only then moTimers
        verifyNoMoreInteractions(mediaStart, maxLength, sessionTimers);
        confirmed.moTimers(c, ok);
        InOrder order = inOrder(mediaStart, maxLength, sessionTimers);
        order.verify(mediaStart).start(c);
        order.verify(maxLength).start(c);
        order.verify(sessionTimers).moConfirmed(c, ok);
        verifyNoMoreInteractions(sessionTimers);
    }

    @Test
    void anMtCallsAckStartsTheWatchesAndTheIntervalTheInviteAgreed() {
        Call c = new Call("mt-1", Direction.MT, "tok", "bob", "ue2@ims.lab", "ft", CallState.ANSWERING);
        confirmed.mt(c);
        assertEquals(CallState.CONFIRMED, c.state(), "the ACK of our 200 confirms the call");
        InOrder order = inOrder(mediaStart, maxLength, sessionTimers);
        order.verify(mediaStart).start(c);
        order.verify(maxLength).start(c);
        order.verify(sessionTimers).mtConfirmed(c);
        verifyNoMoreInteractions(sessionTimers);
    }
}

package org.webrtcims.gw.call;

import org.junit.jupiter.api.Test;
import org.webrtcims.gw.sip.SipFixtures;
import org.webrtcims.gw.sip.SipUserAgent;

import javax.sip.message.Request;
import javax.sip.message.Response;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.*;

/** RFC 3261 §13.2.2.4: another fork's 2xx after the call's own gets ACK and one BYE on its own dialog. */
class ForkingTest {
    private final SipUserAgent ua = mock(SipUserAgent.class);
    private final Forking forking = new Forking(ua);

    private static Response ok(String toTag) throws Exception {
        Request invite = SipFixtures.request(Request.INVITE, "ue1", "c-1", "ft", null, 1, null);
        Response r = SipFixtures.MESSAGES.createResponse(200, invite);
        ((javax.sip.header.ToHeader) r.getHeader(javax.sip.header.ToHeader.NAME)).setTag(toTag);
        return r;
    }

    private static Call answeredBy(String tag) {
        Call c = new Call("c-1", Direction.MO, "tok", "alice", "ue1@ims.lab", "ft", CallState.CALLING);
        c.dialog().follow(mock(javax.sip.Dialog.class), tag);
        c.transition(CallState.CONFIRMED);
        c.finalStatus(200);
        return c;
    }

    @Test
    void aLateForkIsAckedAndEndedOnceEvenWhenIts2xxIsRetransmitted() throws Exception {
        Call c = answeredBy("a");
        javax.sip.Dialog forkB = mock(javax.sip.Dialog.class);
        Request ack = mock(Request.class);
        Request bye = mock(Request.class);
        when(forkB.createAck(1)).thenReturn(ack);
        when(forkB.createRequest(Request.BYE)).thenReturn(bye);
        assertTrue(forking.success(c, ok("b"), forkB));
        assertTrue(forking.success(c, ok("b"), forkB), "the retransmission is forking's too");
        verify(forkB, times(2)).sendAck(ack);
        verify(ua, times(1)).sendInDialog(forkB, bye, null);
        assertEquals(java.util.List.of("ACK (fork b)", "BYE (fork b)", "ACK (fork b)"), c.sipFlow());
    }

    @Test
    void theCallsOwn2xxAndOneBeforeAnyFinalAreNotForkings() throws Exception {
        Call c = answeredBy("a");
        assertFalse(forking.success(c, ok("a"), mock(javax.sip.Dialog.class)), "a retransmission of the call's own 2xx");
        Call early = new Call("c-2", Direction.MO, "tok", "alice", "ue1@ims.lab", "ft", CallState.EARLY);
        early.dialog().follow(mock(javax.sip.Dialog.class), "a");
        assertFalse(forking.success(early, ok("b"), mock(javax.sip.Dialog.class)), "the first 2xx wins, whichever fork sent it");
        verify(ua, never()).sendInDialog(any(), any(), any());
    }
}

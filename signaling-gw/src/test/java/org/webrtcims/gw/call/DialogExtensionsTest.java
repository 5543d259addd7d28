package org.webrtcims.gw.call;

import org.junit.jupiter.api.Test;
import org.mockito.InOrder;
import org.webrtcims.gw.sip.SipFixtures;

import javax.sip.ServerTransaction;
import javax.sip.message.Request;
import javax.sip.message.Response;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.*;

/** The order in which a dialog's extensions see the initial INVITE, provisionals and IMS's in-dialog requests. */
class DialogExtensionsTest {
    private final ReliableProvisionals reliable = mock(ReliableProvisionals.class);
    private final Preconditions preconditions = mock(Preconditions.class);
    private final SessionTimers timers = mock(SessionTimers.class);
    private final MidCallOffers midCall = mock(MidCallOffers.class);
    private final EarlyMedia earlyMedia = mock(EarlyMedia.class);
    private final Forking forking = mock(Forking.class);
    private final Updates updates = mock(Updates.class);
    private final Dtmf dtmf = mock(Dtmf.class);
    private final DialogExtensions extensions = new DialogExtensions(reliable, preconditions, timers, midCall, earlyMedia,
            forking, updates, dtmf);
    private final Call c = new Call("c-1", Direction.MT, "tok", "alice", "ue2@ims.lab", "ue", CallState.CONFIRMED);

    @Test
    void theInviteGets100relThenPreconditionThenTheSessionTimer() throws Exception {
        Request invite = SipFixtures.request(Request.INVITE, "ue1", "c-1", "ft", null, 1, null);
        extensions.initialInvite(c, invite);
        InOrder order = inOrder(reliable, preconditions, timers);
        order.verify(reliable).initialInvite(c, invite);
        order.verify(preconditions).initialInvite(c, invite);
        order.verify(timers).initialInvite(c, invite);
        verifyNoInteractions(midCall);
    }

    @Test
    void theOffersStatusLinesAreTheFirstAnExtensionAsksFor() {
        assertNull(extensions.offering(c), "no extension asks for status lines: the INVITE's SDP must carry none");
        org.webrtcims.gw.sdp.QosPreconditions.Status none =
                new org.webrtcims.gw.sdp.QosPreconditions.Status("none", "none", "optional", false);
        when(preconditions.offering(c)).thenReturn(none);
        assertSame(none, extensions.offering(c), "preconditions asked for status lines: the offer must carry exactly them");
        verify(reliable, times(2)).offering(c);
        verifyNoInteractions(midCall, earlyMedia, forking, updates, dtmf);
    }

    @Test
    void anImsInviteIsShownToTheInvitesExtensionsNotToTheResponseOnes() throws Exception {
        Request invite = SipFixtures.request(Request.INVITE, "alice", "c-1", "ue", null, 1, "v=0");
        extensions.invited(c, invite, "v=0");
        verify(preconditions).invited(c, invite, "v=0");
        verify(timers).invited(c, invite, "v=0");
        verify(reliable).invited(c, invite, "v=0");
        verifyNoInteractions(earlyMedia, forking, midCall);
    }

    @Test
    void anImsInviteRefusedByTheSessionTimerReachesNoOtherExtension() throws Exception {
        javax.sip.ServerTransaction st = mock(javax.sip.ServerTransaction.class);
        when(timers.refusesInvite(st)).thenReturn(true); // a 422: the interval asked is under the gateway's Min-SE
        assertTrue(extensions.refusesInvite(st), "the session timer's refusal must end the INVITE before a call exists");
        verify(reliable).refusesInvite(st);
        verify(preconditions).refusesInvite(st);
        when(timers.refusesInvite(st)).thenReturn(false);
        assertFalse(extensions.refusesInvite(st), "no extension refused: the INVITE goes on");
        verifyNoInteractions(midCall, earlyMedia, forking, updates, dtmf);
    }

    @Test
    void aProvisionalIsPrackedBeforeItsEarlyMediaReachesTheBrowser() throws Exception {
        Response r = SipFixtures.MESSAGES.createResponse(183, SipFixtures.request(Request.INVITE, "ue1", "c-1", "ft", null, 1, null));
        javax.sip.Dialog d = mock(javax.sip.Dialog.class);
        extensions.provisional(c, r, d);
        InOrder order = inOrder(reliable, earlyMedia, forking);
        order.verify(reliable).provisional(c, r, d);
        order.verify(earlyMedia).provisional(c, r, d);
        order.verify(forking).provisional(c, r, d);
        verifyNoInteractions(preconditions, timers, midCall);
    }

    @Test
    void a2xxForkingTakesIsNotTheCallsAnswer() throws Exception {
        Response ok = SipFixtures.MESSAGES.createResponse(200, SipFixtures.request(Request.INVITE, "ue1", "c-1", "ft", null, 1, null));
        javax.sip.Dialog d = mock(javax.sip.Dialog.class);
        assertFalse(extensions.success(c, ok, d), "no extension takes the call's own 2xx");
        when(forking.success(c, ok, d)).thenReturn(true);
        assertTrue(extensions.success(c, ok, d), "another fork's late 2xx is forking's");
    }

    @Test
    void theFirstExtensionThatAnswersARequestEndsTheWalk() {
        ServerTransaction st = mock(ServerTransaction.class);
        when(timers.request(st, c, "v=0")).thenReturn(true); // a 422: the interval asked is too short
        assertTrue(extensions.request(st, c, "v=0"));
        InOrder order = inOrder(preconditions, reliable, timers);
        order.verify(preconditions).request(st, c, "v=0");
        order.verify(reliable).request(st, c, "v=0");
        order.verify(timers).request(st, c, "v=0");
        verifyNoInteractions(midCall, updates);
    }

    @Test
    void aRefreshPassesPreconditionsTheTimerAndTheOffersAndIsAnsweredAsAnUpdate() {
        ServerTransaction st = mock(ServerTransaction.class);
        when(updates.request(st, c, null)).thenReturn(true);
        assertTrue(extensions.request(st, c, null));
        InOrder order = inOrder(preconditions, reliable, timers, midCall, updates);
        order.verify(preconditions).request(st, c, null);
        order.verify(reliable).request(st, c, null);
        order.verify(timers).request(st, c, null);
        order.verify(midCall).request(st, c, null);
        order.verify(updates).request(st, c, null);
    }

    @Test
    void aPreconditionStatusUpdateStopsAtPreconditions() {
        ServerTransaction st = mock(ServerTransaction.class);
        when(preconditions.request(st, c, "v=0 qos")).thenReturn(true);
        assertTrue(extensions.request(st, c, "v=0 qos"));
        // the dialog and the preconditions owner alone: no other extension sees the UPDATE
        verifyNoInteractions(reliable, timers, midCall, updates);
    }

    @Test
    void aRequestNoExtensionAnswersIsReportedAsSuch() {
        assertFalse(extensions.request(mock(ServerTransaction.class), c, null), "the caller answers it (501)");
        verify(updates).request(any(), any(), any());
    }

    @Test
    void theBrowsersMtAnswerGoesToDtmfThenPreconditionsAndTheFirstThatSendsThe200EndsTheWalk() {
        extensions.browserAnswering(c, true);
        extensions.earlyAnswer(c, "v=0 ims-answer");
        when(preconditions.accepted(c)).thenReturn(true);
        assertTrue(extensions.accepted(c), "preconditions send the 200 themselves");
        InOrder order = inOrder(dtmf, preconditions);
        order.verify(dtmf).browserAnswering(c, true);
        order.verify(preconditions).browserAnswering(c, true);
        order.verify(dtmf).earlyAnswer(c, "v=0 ims-answer");
        order.verify(preconditions).earlyAnswer(c, "v=0 ims-answer");
        order.verify(dtmf).accepted(c);
        order.verify(preconditions).accepted(c);
        verifyNoInteractions(reliable, timers, midCall, earlyMedia, forking, updates);
    }
}

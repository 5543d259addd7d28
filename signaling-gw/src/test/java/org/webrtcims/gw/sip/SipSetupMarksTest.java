package org.webrtcims.gw.sip;

import org.junit.jupiter.api.Test;
import org.webrtcims.gw.metrics.SetupTimeline;

import javax.sip.ServerTransaction;
import javax.sip.message.Request;
import javax.sip.message.Response;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.*;

/** Which SIP messages mark a call's set-up timeline, and which do not. */
class SipSetupMarksTest {
    private final SetupTimeline timeline = mock(SetupTimeline.class);
    private final SipSetupMarks marks = new SipSetupMarks(timeline);

    @Test
    void theGatewaysInviteIsMarkedSentAndNoOtherRequest() throws Exception {
        marks.sent(SipFixtures.request(Request.INVITE, "ue1", "mo-1", "f1", null, 1, "v=0"));
        verify(timeline).mark("mo-1", SetupTimeline.Mark.INVITE_SENT);
        marks.sent(SipFixtures.request(Request.BYE, "ue1", "mo-1", "f1", "t1", 2, null));
        verifyNoMoreInteractions(timeline);
    }

    @Test
    void onlyAnInitialInviteFromImsIsMarkedReceivedAtItsArrival() throws Exception {
        marks.received(SipFixtures.request(Request.INVITE, "ue1", "mt-1", "f1", null, 1, "v=0"), 42L, 5L);
        verify(timeline).mark("mt-1", SetupTimeline.Mark.INVITE_RECEIVED, 42L, 5L); // with the SIP thread's CPU time then
        marks.received(SipFixtures.request(Request.INVITE, "ue1", "mt-1", "f1", "t1", 2, "v=0"), 43L); // a re-INVITE
        marks.received(SipFixtures.request(Request.OPTIONS, "ue1", "o-1", "f1", null, 1, null), 44L);
        verifyNoMoreInteractions(timeline);
    }

    @Test
    void imsAnswerIsAn18xOr2xxWithABodyToTheInvite() throws Exception {
        Request invite = SipFixtures.request(Request.INVITE, "ue1", "mo-2", "f1", null, 1, "v=0");
        Response withSdp = SipFixtures.MESSAGES.createResponse(183, invite);
        withSdp.setContent("v=0", SipFixtures.HEADERS.createContentTypeHeader("application", "sdp"));
        marks.received(withSdp, 7L);
        verify(timeline).mark("mo-2", SetupTimeline.Mark.IMS_ANSWER_RECEIVED, 7L, -1L); // CPU time not given: unknown
        marks.received(SipFixtures.MESSAGES.createResponse(180, invite), 8L); // no body: no answer yet
        Response trying = SipFixtures.MESSAGES.createResponse(100, invite);
        trying.setContent("x", SipFixtures.HEADERS.createContentTypeHeader("text", "plain"));
        marks.received(trying, 9L);
        Request update = SipFixtures.request(Request.UPDATE, "ue1", "mo-2", "f1", "t1", 2, "v=0");
        Response updateOk = SipFixtures.MESSAGES.createResponse(200, update);
        updateOk.setContent("v=0", SipFixtures.HEADERS.createContentTypeHeader("application", "sdp"));
        marks.received(updateOk, 10L);
        verifyNoMoreInteractions(timeline);
    }

    @Test
    void onlyA2xxToAnInviteIsMarkedOkSent() throws Exception {
        Request invite = SipFixtures.request(Request.INVITE, "ue1", "mt-3", "f1", null, 1, "v=0");
        ServerTransaction st = mock(ServerTransaction.class);
        when(st.getRequest()).thenReturn(invite);
        marks.responded(st, SipFixtures.MESSAGES.createResponse(180, invite));
        marks.responded(st, SipFixtures.MESSAGES.createResponse(200, invite));
        verify(timeline).mark("mt-3", SetupTimeline.Mark.OK_SENT);
        Request bye = SipFixtures.request(Request.BYE, "ue1", "mt-3", "f1", "t1", 2, null);
        ServerTransaction byeSt = mock(ServerTransaction.class);
        when(byeSt.getRequest()).thenReturn(bye);
        marks.responded(byeSt, SipFixtures.MESSAGES.createResponse(200, bye));
        verify(timeline, never()).mark(any(), any(), anyLong());
        verifyNoMoreInteractions(timeline);
    }
}

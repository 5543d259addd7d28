package org.webrtcims.gw.call;

import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;
import org.webrtcims.gw.sip.ResponseHandler;
import org.webrtcims.gw.sip.SipFixtures;
import org.webrtcims.gw.sip.SipReplies;
import org.webrtcims.gw.sip.SipRequests;
import org.webrtcims.gw.sip.SipUserAgent;

import javax.sip.ServerTransaction;
import javax.sip.header.HeaderFactory;
import javax.sip.message.Request;
import javax.sip.message.Response;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.*;

/** RFC 3262 on a call's dialog: Supported: 100rel on the INVITE, PRACK of reliable provisionals only, 200 to a PRACK. */
class ReliableProvisionalsTest {
    private final SipUserAgent ua = mock(SipUserAgent.class);
    private final CallReplies replies = mock(CallReplies.class);
    private final InviteServer inviteServer = mock(InviteServer.class);
    private final ReliableProvisionals reliable = new ReliableProvisionals(ua,
            new SipReplies(ua, mock(SipRequests.class)), replies, (t, m) -> { }, inviteServer);
    private final Call c = new Call("c-1", Direction.MO, "tok", "alice", "ue1@ims.lab", "ft", CallState.EARLY);

    private static Response provisional(int code, boolean reliable) throws Exception {
        Response r = SipFixtures.MESSAGES.createResponse(code, SipFixtures.request(Request.INVITE, "ue1", "c-1", "ft", null, 1, null));
        if (reliable) {
            r.addHeader(SipFixtures.HEADERS.createRequireHeader("100rel"));
            r.addHeader(SipFixtures.HEADERS.createHeader("RSeq", "1"));
        }
        return r;
    }

    @Test
    void theInviteSaysItSupports100rel() throws Exception {
        HeaderFactory headers = SipFixtures.HEADERS;
        when(ua.headers()).thenReturn(headers);
        Request invite = SipFixtures.request(Request.INVITE, "ue1", "c-1", "ft", null, 1, null);
        reliable.initialInvite(c, invite);
        assertTrue(invite.toString().contains("Supported: 100rel"), invite.toString());
    }

    @Test
    void aReliableProvisionalIsPrackedOnItsForksDialogAndRecorded() throws Exception {
        javax.sip.Dialog fork = mock(javax.sip.Dialog.class);
        Response r = provisional(183, true);
        Request prack = mock(Request.class);
        when(fork.createPrack(r)).thenReturn(prack);
        reliable.provisional(c, r, fork);
        ArgumentCaptor<ResponseHandler> handler = ArgumentCaptor.forClass(ResponseHandler.class);
        verify(ua).sendInDialog(same(fork), same(prack), handler.capture());
        assertInstanceOf(CallResponses.class, handler.getValue(), "the PRACK's answer is recorded in the call's flow");
        assertEquals(java.util.List.of("PRACK"), c.sipFlow());
    }

    @Test
    void anUnreliableProvisionalGetsNoPrack() throws Exception {
        javax.sip.Dialog fork = mock(javax.sip.Dialog.class);
        reliable.provisional(c, provisional(180, false), fork);
        verifyNoInteractions(fork);
        verify(ua, never()).sendInDialog(any(), any(), any());
        assertEquals(java.util.List.of(), c.sipFlow());
    }

    @Test
    void aPrackFromImsGets200AndOtherRequestsAreLeftToTheOtherExtensions() throws Exception {
        ServerTransaction prack = mock(ServerTransaction.class);
        when(prack.getRequest()).thenReturn(SipFixtures.request(Request.PRACK, "alice", "c-1", "ue", "gw", 2, null));
        assertTrue(reliable.request(prack, c, null));
        verify(replies).send(c, prack, Response.OK);
        ServerTransaction update = mock(ServerTransaction.class);
        when(update.getRequest()).thenReturn(SipFixtures.request(Request.UPDATE, "alice", "c-1", "ue", "gw", 3, null));
        assertFalse(reliable.request(update, c, null));
        verifyNoMoreInteractions(replies);
    }

    @Test
    void aReliable183ThatCannotGoRejectsTheInviteAndSaysWhy() throws Exception {
        Call mt = new Call("c-2", Direction.MT, "tok", "bob", "ue2@ims.lab", "ue", CallState.INCOMING);
        ServerTransaction st = mock(ServerTransaction.class);
        javax.sip.Dialog d = mock(javax.sip.Dialog.class);
        when(st.getDialog()).thenReturn(d);
        mt.dialog().invitedBy(st, "gw", "w-contact");
        mt.dialog().dialogOfInvite();
        when(d.createReliableProvisionalResponse(183)).thenThrow(new javax.sip.InvalidArgumentException("no 100rel"));
        CallFailure f = assertThrows(CallFailure.class, () -> reliable.sessionProgress(mt));
        assertEquals("sip-failed", f.code());
        verify(inviteServer).reject(mt, Response.SERVER_INTERNAL_ERROR, "sip-failed");
    }
}

package org.webrtcims.gw.call;

import org.junit.jupiter.api.Test;
import org.webrtcims.gw.sip.SipFixtures;

import javax.sip.ClientTransaction;
import javax.sip.ServerTransaction;
import javax.sip.message.Request;
import javax.sip.message.Response;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.Mockito.*;

/** A call's SIP dialog: which fork an MO call follows, MT tags and transactions, ACK bookkeeping, the deferred BYE. */
class DialogTest {
    @Test
    void anMoCallFollowsTheFirstForkThenTheOneItIsToldToFollow() {
        Dialog d = new Dialog("c-1", null);
        ClientTransaction tx = mock(ClientTransaction.class);
        javax.sip.Dialog initial = mock(javax.sip.Dialog.class);
        when(tx.getDialog()).thenReturn(initial);
        d.inviteSent(tx);
        assertSame(initial, d.sip(), "the INVITE's dialog until a response names a fork");
        assertSame(tx, d.inviteTx());

        javax.sip.Dialog forkA = mock(javax.sip.Dialog.class);
        javax.sip.Dialog forkB = mock(javax.sip.Dialog.class);
        d.followFirstFork(forkA, "a", true);
        assertEquals("a", d.toTag());
        assertSame(forkA, d.sip());
        d.followFirstFork(forkB, "b", true);
        assertSame(forkA, d.sip(), "a second fork's provisional does not take the call over");
        assertEquals("a", d.toTag());
        assertTrue(d.otherFork("b"));
        assertFalse(d.otherFork("a"));
        assertFalse(d.otherFork(null), "no tag is no other fork");

        d.follow(forkB, "b"); // e.g. fork b's 2xx
        assertSame(forkB, d.sip());
        assertTrue(d.is(forkB));
        assertEquals("b", d.toTag());
        d.forgetFork(); // a 422: the INVITE goes again
        assertNull(d.toTag());
        assertFalse(d.otherFork("b"), "with no fork followed, no tag is another one");
    }

    @Test
    void aResponseAfterTheCallLeftItsEarlyStateStillNamesTheCalleeButMovesNoDialog() {
        Dialog d = new Dialog("c-1", null);
        javax.sip.Dialog fork = mock(javax.sip.Dialog.class);
        d.followFirstFork(fork, "late", false);
        assertNull(d.sip(), "not early: the call's dialog is not replaced");
        assertEquals("late", d.toTag(), "rtpengine's answer names the callee's tag");
    }

    @Test
    void anMtDialogKeepsItsOwnTagTheInvitesTransactionAndItsDialog() {
        Dialog d = new Dialog("c-2", null);
        ServerTransaction st = mock(ServerTransaction.class);
        javax.sip.Dialog early = mock(javax.sip.Dialog.class);
        javax.sip.Dialog confirmed = mock(javax.sip.Dialog.class);
        d.invitedBy(st, "gw-tag", "w-contact");
        assertEquals("gw-tag", d.toTag());
        assertEquals("w-contact", d.contactUser());
        assertSame(st, d.inviteServerTx());
        when(st.getDialog()).thenReturn(early);
        d.earlyDialogOfInvite();
        assertSame(early, d.sip());
        when(st.getDialog()).thenReturn(confirmed);
        d.earlyDialogOfInvite();
        assertSame(early, d.sip(), "a second 180 keeps the early dialog");
        d.dialogOfInvite();
        assertSame(confirmed, d.sip(), "the 200's dialog");
        d.localTag("from-183");
        assertEquals("from-183", d.toTag());
    }

    @Test
    void anAckIsTakenOncePerCseqAndTheDeferredByeGoesOnce() {
        Dialog d = new Dialog("c-3", null);
        assertTrue(d.ackReceived(1));
        assertFalse(d.ackReceived(1), "the same CSeq again: the UE answering a retransmitted 2xx");
        assertTrue(d.ackReceived(2), "a re-INVITE's ACK");
        assertFalse(d.takeByeAfterAck(), "no BYE waits unless the browser hung up before the ACK");
        d.byeAfterAck();
        assertTrue(d.takeByeAfterAck());
        assertFalse(d.takeByeAfterAck(), "the BYE goes once");
    }

    @Test
    void theAckOfA2xxUsesItsCseqOnTheCallsDialogAndAFailureIsReportedNotThrown() throws Exception {
        Dialog d = new Dialog("c-4", null);
        ClientTransaction tx = mock(ClientTransaction.class);
        javax.sip.Dialog sip = mock(javax.sip.Dialog.class);
        when(tx.getDialog()).thenReturn(sip);
        d.inviteSent(tx);
        Request invite = SipFixtures.request(Request.INVITE, "alice", "c-4", "ft", null, 7, null);
        Response ok = SipFixtures.MESSAGES.createResponse(200, invite);
        Request ack = mock(Request.class);
        when(sip.createAck(7)).thenReturn(ack);
        assertTrue(d.ack(ok, "the INVITE"));
        verify(sip).sendAck(ack);
        when(sip.createAck(7)).thenThrow(new javax.sip.InvalidArgumentException("gone"));
        assertFalse(d.ack(ok, "the INVITE"), "an ACK that cannot go is logged and reported, the caller goes on");
    }

    @Test
    void inDialogRequestsGoOutOnTheDialogTheCallFollowsThroughItsSender() throws Exception {
        java.util.List<Object[]> sent = new java.util.ArrayList<>();
        Dialog d = new Dialog("c-5", (dialog, request, handler) -> {
            sent.add(new Object[] {dialog, request, handler});
            return null;
        });
        javax.sip.Dialog forkA = mock(javax.sip.Dialog.class);
        javax.sip.Dialog forkB = mock(javax.sip.Dialog.class);
        Request bye = mock(Request.class);
        when(forkB.createRequest(Request.BYE)).thenReturn(bye);
        d.followFirstFork(forkA, "a", true);
        d.follow(forkB, "b");
        Request req = d.request(Request.BYE);
        assertSame(bye, req, "created by the followed fork's dialog (its route set and CSeq)");
        org.webrtcims.gw.sip.ResponseHandler h = mock(org.webrtcims.gw.sip.ResponseHandler.class);
        d.send(req, h);
        assertEquals(1, sent.size());
        assertSame(forkB, sent.get(0)[0], "sent on the dialog the call follows");
        assertSame(h, sent.get(0)[2]);
    }

    @Test
    void anInDialogRequestIsAnsweredWithTheDialogsContactAndRecordedInTheCallsFlow() throws Exception {
        java.util.List<String> flow = new java.util.ArrayList<>();
        Dialog d = new Dialog("c-7", null, flow::add);
        d.invitedBy(mock(ServerTransaction.class), "gwtag", "w-contact");
        org.webrtcims.gw.sip.SipReplies sip = mock(org.webrtcims.gw.sip.SipReplies.class);
        ServerTransaction st = mock(ServerTransaction.class);
        when(st.getRequest()).thenReturn(SipFixtures.request(Request.UPDATE, "alice", "c-7", "uetag", "gwtag", 3, "v=0 offer"));
        assertTrue(d.reply(sip, st, Response.OK, "v=0 answer"));
        verify(sip).send(st, Response.OK, null, "w-contact", "v=0 answer");
        assertEquals(java.util.List.of("200"), flow, "what the dialog answers is in the call's SIP flow");

        doThrow(new javax.sip.SipException("transport gone")).when(sip).send(st, Response.OK, null, "w-contact", null);
        assertFalse(d.reply(sip, st, Response.OK, null), "a reply that cannot go is logged and reported, the caller goes on");
        assertEquals(java.util.List.of("200"), flow, "a reply that did not go is not recorded as sent");
    }

    @Test
    void aDialogWithoutASipStackRefusesToSendAndSaysWhy() {
        Dialog d = new Dialog("c-6", null);
        javax.sip.SipException e = assertThrows(javax.sip.SipException.class, () -> d.send(mock(Request.class), null));
        assertTrue(e.getMessage().contains("c-6") && e.getMessage().contains("no SIP stack"), e.getMessage());
    }
}

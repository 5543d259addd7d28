package org.webrtcims.gw.call;

import org.junit.jupiter.api.Test;
import org.webrtcims.gw.sip.SipFixtures;

import javax.sip.message.Request;

import static org.junit.jupiter.api.Assertions.*;

/** In-dialog requests are matched on Call-ID and both tags (RFC 3261 §12.2.2), not on the Call-ID alone. */
class DialogMatchTest {
    @Test
    void mtCallTheGatewaysToTagAndTheCallersFromTag() throws Exception {
        Call mt = new Call("c1", Direction.MT, "tok", "alice", "ue2@ims.lab", "caller", CallState.INCOMING);
        mt.dialog().invitedBy(null, "gw", "w-contact");
        assertTrue(DialogRequests.inDialogOf(mt, SipFixtures.request(Request.BYE, "alice", "c1", "caller", "gw", 2, null)));
        assertFalse(DialogRequests.inDialogOf(mt, SipFixtures.request(Request.BYE, "alice", "c1", "caller", "other", 2, null)));
        assertFalse(DialogRequests.inDialogOf(mt, SipFixtures.request(Request.BYE, "alice", "c1", "intruder", "gw", 2, null)));
        assertFalse(DialogRequests.inDialogOf(mt, SipFixtures.request(Request.BYE, "alice", "c1", "caller", null, 2, null)));
        assertTrue(DialogRequests.inDialogOf(mt, SipFixtures.request(Request.CANCEL, "alice", "c1", "caller", null, 1, null)));
        assertFalse(DialogRequests.inDialogOf(mt, SipFixtures.request(Request.CANCEL, "alice", "c1", "intruder", null, 1, null)));
    }

    @Test
    void aRetransmittedInitialInviteIsTheSameRequestAMergedOneIsNot() throws Exception {
        Request first = SipFixtures.request(Request.INVITE, "alice", "c3", "caller", null, 1, null);
        assertTrue(DialogRequests.isSameRequest(first, SipFixtures.request(Request.INVITE, "alice", "c3", "caller", null, 1, null)),
                "same branch, From tag and CSeq: a retransmission (dropped, not 482)");
        Request merged = SipFixtures.request(Request.INVITE, "alice", "c3", "caller", null, 1, null);
        ((javax.sip.header.ViaHeader) merged.getHeader(javax.sip.header.ViaHeader.NAME)).setBranch("z9hG4bK-other");
        assertFalse(DialogRequests.isSameRequest(first, merged), "another branch: a merged request (482)");
        assertFalse(DialogRequests.isSameRequest(first, SipFixtures.request(Request.INVITE, "alice", "c3", "other", null, 1, null)));
        assertFalse(DialogRequests.isSameRequest(first, SipFixtures.request(Request.INVITE, "alice", "c3", "caller", null, 2, null)));
        assertFalse(DialogRequests.isSameRequest(null, first));
        Call mo = new Call("c3", Direction.MO, "tok", "alice", "ue1@ims.lab", "gw", CallState.CALLING);
        assertFalse(DialogRequests.isInviteRetransmission(mo, first), "MO calls have no INVITE server transaction");
    }

    @Test
    void moCallTheGatewaysFromTagAndTheCalleesTagOnceKnown() throws Exception {
        Call mo = new Call("c2", Direction.MO, "tok", "alice", "ue1@ims.lab", "gw", CallState.CALLING);
        // before the callee's tag is known any remote tag is taken (an UPDATE in the early dialog)
        assertTrue(DialogRequests.inDialogOf(mo, SipFixtures.request(Request.UPDATE, "alice", "c2", "callee", "gw", 1, null)));
        mo.dialog().followFirstFork(null, "callee", true);
        assertTrue(DialogRequests.inDialogOf(mo, SipFixtures.request(Request.BYE, "alice", "c2", "callee", "gw", 2, null)));
        assertFalse(DialogRequests.inDialogOf(mo, SipFixtures.request(Request.BYE, "alice", "c2", "someone", "gw", 2, null)));
        assertFalse(DialogRequests.inDialogOf(mo, SipFixtures.request(Request.CANCEL, "alice", "c2", "callee", null, 1, null)), "no CANCEL of an MO call");
    }
}

package org.webrtcims.gw.call;

import org.junit.jupiter.api.Test;
import org.webrtcims.gw.sip.SipFixtures;

import javax.sip.ServerTransaction;
import javax.sip.message.Request;
import javax.sip.message.Response;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.Mockito.*;

/** RFC 3311: what the other extensions leave of an UPDATE is answered 200 without SDP, 488 with an early offer. */
class UpdatesTest {
    private final CallReplies replies = mock(CallReplies.class);
    private final Updates updates = new Updates(replies);
    private final Call c = new Call("c-1", Direction.MT, "tok", "alice", "ue2@ims.lab", "ue", CallState.INCOMING);

    private static ServerTransaction tx(String method) throws Exception {
        ServerTransaction st = mock(ServerTransaction.class);
        when(st.getRequest()).thenReturn(SipFixtures.request(method, "alice", "c-1", "ue", "gw", 2, null));
        return st;
    }

    @Test
    void anUpdateWithoutSdpGets200AndAnEarlyOfferWithoutPreconditions488() throws Exception {
        ServerTransaction refresh = tx(Request.UPDATE);
        assertTrue(updates.request(refresh, c, null));
        verify(replies).send(c, refresh, Response.OK);
        ServerTransaction offer = tx(Request.UPDATE);
        assertTrue(updates.request(offer, c, "v=0"));
        verify(replies).send(c, offer, Response.NOT_ACCEPTABLE_HERE);
    }

    @Test
    void otherMethodsAreNotUpdates() throws Exception {
        assertFalse(updates.request(tx(Request.PRACK), c, null));
        assertFalse(updates.request(tx(Request.INVITE), c, "v=0"));
        verifyNoInteractions(replies);
    }
}

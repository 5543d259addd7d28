package org.webrtcims.gw.sip;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;
import org.webrtcims.gw.config.GatewayProperties;

import javax.sip.ServerTransaction;
import javax.sip.address.SipURI;
import javax.sip.header.ContactHeader;
import javax.sip.header.ContentTypeHeader;
import javax.sip.header.ToHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.Mockito.*;

/** SipReplies: the To tag only where the request had none, the Contact of the browser user, the SDP body. */
class SipRepliesTest {
    private static final String SDP = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 6000 RTP/AVP 0\r\n";

    GatewayProperties props = new GatewayProperties();
    SipReplies replies;

    @BeforeEach
    void setUp() throws Exception {
        SipUserAgent ua = SipTestUa.withFactories();
        replies = new SipReplies(ua, new SipRequests(ua, props));
    }

    @Test
    void aFinalResponseToAnInitialRequestGetsTheGivenTagContactAndBody() throws Exception {
        Request invite = SipFixtures.request(Request.INVITE, "alice", "c1", "ft", null, 1, SDP);
        Response r = replies.build(invite, Response.OK, "our-tag", "alice", SDP);
        assertEquals(200, r.getStatusCode());
        assertEquals("our-tag", ((ToHeader) r.getHeader(ToHeader.NAME)).getTag());
        SipURI contact = (SipURI) ((ContactHeader) r.getHeader(ContactHeader.NAME)).getAddress().getURI();
        assertEquals("alice", contact.getUser());
        assertEquals(props.getSip().getPort(), contact.getPort());
        assertEquals("application", ((ContentTypeHeader) r.getHeader(ContentTypeHeader.NAME)).getContentType());
        assertEquals(SDP, SipHeaders.sdp(r));
    }

    @Test
    void anInDialogRequestKeepsItsToTagAndABareReplyHasNoContactNorBody() throws Exception {
        Request bye = SipFixtures.request(Request.BYE, "alice", "c1", "ft", "dialog-tag", 2, null);
        Response r = replies.build(bye, Response.OK, "other-tag", null, null);
        assertEquals("dialog-tag", ((ToHeader) r.getHeader(ToHeader.NAME)).getTag());
        assertNull(r.getHeader(ContactHeader.NAME));
        assertNull(SipHeaders.sdp(r));
    }

    @Test
    void noTagAskedLeavesTheToUntagged() throws Exception {
        Request invite = SipFixtures.request(Request.INVITE, "alice", "c1", "ft", null, 1, null);
        assertNull(((ToHeader) replies.build(invite, Response.TRYING, null, null, null).getHeader(ToHeader.NAME)).getTag());
    }

    @Test
    void completeFillsAResponseMadeElsewhere() throws Exception {
        Request invite = SipFixtures.request(Request.INVITE, "alice", "c1", "ft", null, 1, SDP);
        Response progress = SipFixtures.MESSAGES.createResponse(183, invite);
        assertSame(progress, replies.complete(progress, "t183", "bob", SDP));
        assertEquals("t183", ((ToHeader) progress.getHeader(ToHeader.NAME)).getTag());
        assertNotNull(progress.getHeader(ContactHeader.NAME));
        assertEquals(SDP, SipHeaders.sdp(progress));
    }

    @Test
    void sendGoesOnTheTransactionItAnswers() throws Exception {
        Request update = SipFixtures.request(Request.UPDATE, "alice", "c1", "ft", "tt", 3, SDP);
        ServerTransaction st = mock(ServerTransaction.class);
        when(st.getRequest()).thenReturn(update);
        replies.send(st, Response.NOT_ACCEPTABLE_HERE);
        ArgumentCaptor<Response> sent = ArgumentCaptor.forClass(Response.class);
        verify(st).sendResponse(sent.capture());
        assertEquals(488, sent.getValue().getStatusCode());
        assertEquals(Request.UPDATE, ((javax.sip.header.CSeqHeader) sent.getValue().getHeader("CSeq")).getMethod());
    }
}

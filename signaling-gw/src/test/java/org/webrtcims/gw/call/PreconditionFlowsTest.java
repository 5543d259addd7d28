package org.webrtcims.gw.call;

import org.webrtcims.gw.sip.SipFixtures;
import org.webrtcims.gw.sip.SipHeaders;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.sip.ResponseHandler;
import org.webrtcims.gw.sip.SipRequests;
import org.webrtcims.gw.sip.SipUserAgent;

import javax.sip.*;
import javax.sip.Dialog;
import javax.sip.address.SipURI;
import javax.sip.header.ContactHeader;
import javax.sip.header.ToHeader;
import javax.sip.message.Message;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.util.*;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.ArgumentMatchers.*;
import static org.mockito.Mockito.*;

/** RFC 3312 / TS 24.229 precondition flows of both directions, with real SIP messages and mocked transport. */
class PreconditionFlowsTest {
    static final String QOS_NONE = "a=curr:qos local none\r\na=curr:qos remote none\r\n"
            + "a=des:qos mandatory local sendrecv\r\na=des:qos optional remote sendrecv\r\n";
    static final String UE_SDP = "v=0\r\no=ue 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
            + "m=audio 6300 RTP/AVP 111\r\na=rtpmap:111 opus/48000/2\r\n";
    static final String RTP_SDP = "v=0\r\no=- 7 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
            + "m=audio 30000 RTP/AVP 111\r\na=rtpmap:111 opus/48000/2\r\n";

    SipUserAgent ua = mock(SipUserAgent.class);
    SipRequests requests = mock(SipRequests.class);
    CallMedia media = mock(CallMedia.class);
    /** Each call\'s SDP exchanges (its media leg, ScriptedLegs). */
    ScriptedLegs.Exchanges legs = mock(ScriptedLegs.Exchanges.class);
    LocalMediaWatch watch = mock(LocalMediaWatch.class);
    CallTimers timers = mock(CallTimers.class);
    GatewayProperties props = new GatewayProperties();
    List<Map<String, Object>> toBrowser = Collections.synchronizedList(new ArrayList<>());
    CallRegistry registry = new CallRegistry(props);
    Dialog dialog = mock(Dialog.class);
    CallTeardown teardown;
    CallWiring wiring;

    @BeforeEach
    void setUp() throws Exception {
        ScriptedLegs.install(media, legs);
        CallEventSink sink = (token, msg) -> toBrowser.add(msg);
        wiring = CallWiring.of(ua, requests, media, sink, registry, u -> Optional.of("tok"), watch, timers, props);
        teardown = wiring.teardown();
        when(ua.response(anyInt(), any())).thenAnswer(i -> SipFixtures.MESSAGES.createResponse(i.getArgument(0), (Request) i.getArgument(1)));
        when(ua.serverTransaction(any())).thenAnswer(i -> ((RequestEvent) i.getArgument(0)).getServerTransaction());
        when(ua.headers()).thenReturn(SipFixtures.HEADERS);
        when(ua.addresses()).thenReturn(SipFixtures.ADDRESSES);
        when(requests.contact(anyString())).thenAnswer(i -> SipFixtures.HEADERS.createContactHeader(
                SipFixtures.ADDRESSES.createAddress(SipFixtures.ADDRESSES.createSipURI(i.getArgument(0), "127.0.0.1"))));
        doAnswer(i -> {
            ((Message) i.getArgument(0)).setContent(i.getArgument(1), SipFixtures.HEADERS.createContentTypeHeader("application", "sdp"));
            return null;
        }).when(requests).setSdpBody(any(), anyString());
    }

    private static String body(Message m) { return SipHeaders.sdp(m); }

    private Runnable capturedOnUp() {
        ArgumentCaptor<Runnable> up = ArgumentCaptor.forClass(Runnable.class);
        verify(watch).start(any(), up.capture(), any());
        return up.getValue();
    }

    private List<Object> types() { return toBrowser.stream().map(m -> m.get("type")).toList(); }

    // ---- MT: INVITE with preconditions from a VoLTE UE toward the browser ----

    private record MtCall(IncomingCalls incoming, ServerTransaction inviteTx) { }

    /** A VoLTE UE's INVITE (qos lines, the given Supported headers) handed to a fresh IncomingCalls. */
    private MtCall preconditionInvite(String callId, String... supported) throws Exception {
        IncomingCalls incoming = wiring.incoming();
        when(legs.bridgeImsOffer(any(), anyString())).thenReturn("v=0 browser-offer");
        when(legs.bridgeBrowserAnswer(any(), anyString())).thenReturn(RTP_SDP);
        Request invite = SipFixtures.request(Request.INVITE, "alice", callId, "uetag", null, 1, UE_SDP + QOS_NONE);
        // to alice's registered Contact, whose user part is her registration's random one (sip/ContactUsers)
        ((javax.sip.address.SipURI) invite.getRequestURI()).setUser(wiring.contactUsers().issue("alice"));
        for (String tags : supported) invite.addHeader(SipFixtures.HEADERS.createSupportedHeader(tags));
        ServerTransaction inviteTx = mock(ServerTransaction.class);
        when(inviteTx.getRequest()).thenReturn(invite);
        when(inviteTx.getDialog()).thenReturn(dialog);
        when(dialog.createReliableProvisionalResponse(183)).thenAnswer(i -> SipFixtures.MESSAGES.createResponse(183, invite));
        wiring.sip().onRequest(new RequestEvent(mock(SipProvider.class), inviteTx, null, invite));
        return new MtCall(incoming, inviteTx);
    }

    @Test
    void mtAlertsOnlyWhenBothSegmentsAreMetThenAnswersWithoutSdp() throws Exception {
        MtCall mt = preconditionInvite("call-mt", "100rel", "precondition");
        IncomingCalls incoming = mt.incoming();
        ServerTransaction inviteTx = mt.inviteTx();

        assertEquals(List.of("incoming"), types());
        assertEquals(true, toBrowser.get(0).get("preconditions"));
        ArgumentCaptor<Response> sent = ArgumentCaptor.forClass(Response.class);
        verify(inviteTx).sendResponse(sent.capture());
        assertEquals(List.of(100), sent.getAllValues().stream().map(Response::getStatusCode).toList(), "no 180 before QoS");

        Call c = registry.find("call-mt").orElseThrow();
        incoming.earlyMedia(c, "v=0 browser-answer");
        ArgumentCaptor<Response> rel = ArgumentCaptor.forClass(Response.class);
        verify(dialog).sendReliableProvisionalResponse(rel.capture());
        String sdp183 = body(rel.getValue());
        assertTrue(sdp183.contains("a=curr:qos local none") && sdp183.contains("a=conf:qos remote sendrecv"), sdp183);
        assertTrue(sdp183.contains("a=des:qos mandatory remote sendrecv"), sdp183);

        // PRACK, then the UE's UPDATE (its segment met) arrives before our browser leg is up: answer waits.
        ServerTransaction prackTx = mock(ServerTransaction.class);
        Request prack = SipFixtures.request(Request.PRACK, "alice", "call-mt", "uetag", c.dialog().toTag(), 2, null);
        when(prackTx.getRequest()).thenReturn(prack); // as a real server transaction does
        wiring.sip().onRequest(new RequestEvent(mock(SipProvider.class), prackTx, dialog, prack));
        verify(prackTx).sendResponse(argThat(r -> r.getStatusCode() == 200));
        ServerTransaction updateTx = mock(ServerTransaction.class);
        Request update = SipFixtures.request(Request.UPDATE, "alice", "call-mt", "uetag", c.dialog().toTag(), 3,
                UE_SDP + "a=curr:qos local sendrecv\r\na=curr:qos remote none\r\na=des:qos mandatory local sendrecv\r\n");
        when(updateTx.getRequest()).thenReturn(update);
        wiring.sip().onRequest(new RequestEvent(mock(SipProvider.class), updateTx, dialog, update));
        verify(updateTx, never()).sendResponse(any());
        assertFalse(types().contains("alerting"));

        // dtmf "inject" belongs on `media`: the SDP answer is out, so on `answer` it is refused and nothing changes
        CallFailure late = assertThrows(CallFailure.class, () -> incoming.answer(c, null, true, null));
        assertEquals("bad-message", late.code());
        assertTrue(late.getMessage().contains("media"), late.getMessage());
        incoming.answer(c, null); // the user accepts early; 200 must still wait for the 180
        capturedOnUp().run();     // the browser leg is up: local segment met
        ArgumentCaptor<Response> upd = ArgumentCaptor.forClass(Response.class);
        verify(updateTx).sendResponse(upd.capture());
        assertTrue(body(upd.getValue()).contains("a=curr:qos local sendrecv\r\na=curr:qos remote sendrecv"), body(upd.getValue()));
        assertTrue(types().contains("alerting"));
        verify(inviteTx, times(3)).sendResponse(sent.capture());
        List<Integer> codes = sent.getAllValues().stream().map(Response::getStatusCode).toList();
        assertEquals(List.of(180, 200), codes.subList(codes.size() - 2, codes.size()));
        assertNull(body(sent.getAllValues().get(sent.getAllValues().size() - 1)), "offer/answer was done in the 183");
        assertEquals(List.of("INVITE", "100", "183", "PRACK", "200", "UPDATE", "200", "180", "200"), c.sipFlow());
    }

    @Test
    void mtWithoutTheBrowserLegComingUpFailsWith580() throws Exception {
        MtCall mt = preconditionInvite("call-mt2", "100rel, precondition"); // one combined Supported header
        IncomingCalls incoming = mt.incoming();
        ServerTransaction inviteTx = mt.inviteTx();
        Call c = registry.find("call-mt2").orElseThrow();
        incoming.answer(c, "v=0 browser-answer"); // answer with SDP = early media + accept
        ArgumentCaptor<Runnable> timeout = ArgumentCaptor.forClass(Runnable.class);
        verify(watch).start(any(), any(), timeout.capture());
        timeout.getValue().run();
        verify(inviteTx).sendResponse(argThat(r -> r.getStatusCode() == 580));
        assertEquals(580, toBrowser.get(toBrowser.size() - 1).get("sipCode"));
        verify(media).release(c);
    }

    @Test
    void anUpdateWithQosStatusIsPreconditionsBeforeTheCallIsConfirmedAndAMidCallOfferAfter() throws Exception {
        ServerTransaction st = mock(ServerTransaction.class);
        Request update = SipFixtures.request(Request.UPDATE, "alice", "call-u", "uetag", "gwtag", 3, UE_SDP + QOS_NONE);
        when(st.getRequest()).thenReturn(update);
        Call early = new Call("call-u", Direction.MT, "tok", "alice", "ue5@ims.lab", "uetag", CallState.INCOMING);
        early.qos().use(true, "none");
        early.media().sentToIms(RTP_SDP + QOS_NONE);
        assertTrue(wiring.preconditions().request(st, early, UE_SDP + QOS_NONE),
                "before the answer, an UPDATE with precondition status must be handled by preconditions");
        assertSame(st, early.qos().pendingUpdate(), "MT, local segment not met yet: the answer must wait for it");
        verify(st, never()).sendResponse(any());

        Call confirmed = new Call("call-v", Direction.MT, "tok", "alice", "ue5@ims.lab", "uetag", CallState.CONFIRMED);
        confirmed.qos().use(true, "sendrecv");
        confirmed.media().sentToIms(RTP_SDP + QOS_NONE);
        assertFalse(wiring.preconditions().request(st, confirmed, UE_SDP + QOS_NONE),
                "in a confirmed call an UPDATE offer is a mid-call offer (MidCallOffers), not a precondition exchange");
        assertNull(confirmed.qos().pendingUpdate(), "a confirmed call's UPDATE must not be held by preconditions");
    }

    // ---- MO: the browser calls a VoLTE UE ----

    @Test
    void moOffersPreconditionsPracksThe183AndUpdatesWhenTheBrowserLegIsUp() throws Exception {
        OutgoingCalls outgoing = wiring.outgoing();
        when(ua.newCallId()).thenReturn("call-mo");
        SipURI target = SipFixtures.ADDRESSES.createSipURI("ue4", "ims.lab");
        when(requests.targetUri("ue4")).thenReturn(target);
        when(requests.aor("alice")).thenReturn(SipFixtures.ADDRESSES.createAddress(SipFixtures.ADDRESSES.createSipURI("alice", "ims.lab")));
        Request invite = SipFixtures.request(Request.INVITE, "ue4", "call-mo", "atag", null, 1, null);
        when(requests.newRequest(eq(Request.INVITE), any(), any(), anyString(), any(), eq("call-mo"), eq(1L), eq("w-contact-of-alice"))).thenReturn(invite);
        // the leg's exchange as MediaLeg fills it: rtpengine's SDP with the status lines the extensions asked for
        when(legs.bridgeBrowserOffer(any(), anyString(), any())).thenAnswer(i -> {
            org.webrtcims.gw.sdp.QosPreconditions.Status offered = i.getArgument(2);
            return offered == null ? RTP_SDP : org.webrtcims.gw.sdp.QosPreconditions.withStatus(RTP_SDP, offered);
        });
        when(legs.bridgeImsAnswer(any(), anyString())).thenReturn("v=0 browser-answer");
        ClientTransaction inviteTx = mock(ClientTransaction.class);
        when(ua.sendRequest(any(), any())).thenReturn(inviteTx);
        when(inviteTx.getDialog()).thenReturn(dialog);

        outgoing.place("tok", "alice", "ue4", "v=0 browser-offer", null, false, null);
        String offer = body(invite);
        assertTrue(offer.contains(QOS_NONE), offer);
        assertTrue(SipHeaders.supportsOrRequires(invite, "precondition") && SipHeaders.supportsOrRequires(invite, "100rel"));
        ArgumentCaptor<ResponseHandler> h = ArgumentCaptor.forClass(ResponseHandler.class);
        verify(ua).sendRequest(eq(invite), h.capture());

        Response p183 = SipFixtures.MESSAGES.createResponse(183, invite);
        ((ToHeader) p183.getHeader(ToHeader.NAME)).setTag("uetag");
        p183.addHeader(SipFixtures.HEADERS.createRequireHeader("100rel"));
        p183.addHeader(SipFixtures.HEADERS.createRSeqHeader(1));
        p183.setContent(UE_SDP + "a=curr:qos local none\r\na=curr:qos remote none\r\na=des:qos mandatory local sendrecv\r\n"
                + "a=des:qos mandatory remote sendrecv\r\na=conf:qos remote sendrecv\r\n",
                SipFixtures.HEADERS.createContentTypeHeader("application", "sdp"));
        Request prack = SipFixtures.request(Request.PRACK, "ue4", "call-mo", "atag", "uetag", 2, null);
        when(dialog.createPrack(p183)).thenReturn(prack);
        h.getValue().onResponse(new ResponseEvent(new Object(), inviteTx, dialog, p183));
        verify(ua).sendInDialog(eq(dialog), eq(prack), any());
        assertEquals("progress", toBrowser.get(1).get("type"));
        assertEquals("v=0 browser-answer", toBrowser.get(1).get("sdp"));

        Request update = SipFixtures.request(Request.UPDATE, "ue4", "call-mo", "atag", "uetag", 3, null);
        // JAIN-SIP's dialog puts a bare Contact (no user part) into a request it creates
        update.addHeader(SipFixtures.HEADERS.createContactHeader(SipFixtures.ADDRESSES.createAddress("sip:127.0.0.1:5070;transport=udp")));
        when(dialog.createRequest(Request.UPDATE)).thenReturn(update);
        capturedOnUp().run();
        verify(ua).sendInDialog(eq(dialog), eq(update), any());
        java.util.List<Object> contacts = new java.util.ArrayList<>();
        update.getHeaders(ContactHeader.NAME).forEachRemaining(contacts::add);
        assertEquals(1, contacts.size(), "RFC 3261 §12.2.1.1 / RFC 3311: the UPDATE (a target refresh) carries one Contact, the gateway's: " + contacts);
        assertTrue(contacts.get(0).toString().contains("@"), "the Contact has the gateway's user part: " + contacts);
        String upd = body(update);
        assertTrue(upd.contains("a=curr:qos local sendrecv\r\na=curr:qos remote none"), upd);
        assertTrue(upd.startsWith("v=0\r\no=- 7 2 "), "new SDP version: " + upd);

        Response ok = SipFixtures.MESSAGES.createResponse(200, invite);
        ((ToHeader) ok.getHeader(ToHeader.NAME)).setTag("uetag");
        when(dialog.createAck(1L)).thenReturn(SipFixtures.request(Request.ACK, "ue4", "call-mo", "atag", "uetag", 1, null));
        h.getValue().onResponse(new ResponseEvent(new Object(), inviteTx, dialog, ok));
        verify(legs, times(1)).bridgeImsAnswer(any(), anyString());
        assertEquals("answered", toBrowser.get(toBrowser.size() - 1).get("type"));
        assertEquals("v=0 browser-answer", toBrowser.get(toBrowser.size() - 1).get("sdp"));
        Call c = registry.find("call-mo").orElseThrow();
        assertTrue(c.qos().on());
        assertEquals(List.of("INVITE", "183", "PRACK", "UPDATE", "200", "ACK"), c.sipFlow());
    }
}

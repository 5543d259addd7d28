package org.webrtcims.gw.call;

import org.webrtcims.gw.sip.SipFixtures;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;
import org.webrtcims.gw.sip.ResponseHandler;
import org.webrtcims.gw.sip.SipRequests;
import org.webrtcims.gw.sip.SipUserAgent;

import javax.sip.ClientTransaction;
import javax.sip.Dialog;
import javax.sip.ResponseEvent;
import javax.sip.address.SipURI;
import javax.sip.header.ToHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.util.*;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.ArgumentMatchers.*;
import static org.mockito.Mockito.*;

/** The MO state machine: offer → INVITE → 180 → 200 → ACK → answered; CANCEL; failures. */
class OutgoingCallsTest {
    SipUserAgent ua = mock(SipUserAgent.class);
    SipRequests requests = mock(SipRequests.class);
    CallMedia media = mock(CallMedia.class);
    /** Each call\'s SDP exchanges (its media leg, ScriptedLegs). */
    ScriptedLegs.Exchanges legs = mock(ScriptedLegs.Exchanges.class);
    List<Map<String, Object>> toBrowser = Collections.synchronizedList(new ArrayList<>());
    List<String> atAnswered = Collections.synchronizedList(new ArrayList<>());
    org.webrtcims.gw.metrics.GatewayMetrics metrics = org.webrtcims.gw.metrics.GatewayMetrics.none();
    CallTeardown teardown;
    OutgoingCalls outgoing;
    ClientTransaction inviteTx = mock(ClientTransaction.class);
    Dialog dialog = mock(Dialog.class);
    Request invite;
    LocalMediaWatch watch = mock(LocalMediaWatch.class);
    CallTimers timers = mock(CallTimers.class);
    org.webrtcims.gw.config.GatewayProperties props = new org.webrtcims.gw.config.GatewayProperties();
    CallRegistry registry = new CallRegistry(metrics, props);
    org.webrtcims.gw.sip.RegistrationClient registration;

    @BeforeEach
    void setUp() throws Exception {
        ScriptedLegs.install(media, legs);
        CallEventSink sink = (token, msg) -> {
            toBrowser.add(msg);
            if ("answered".equals(msg.get("type"))) { // what had happened when the answer left (issue #26)
                var answers = metrics.registry().find("gw.call.answers").tag("direction", "mo").counter();
                atAnswered.add(call().state() + " answers=" + (answers == null ? 0 : (long) answers.count()));
            }
        };
        props.getIms().setPreconditions(false);
        CallWiring w = CallWiring.of(ua, requests, media, sink, registry, u -> Optional.empty(), watch, timers, props);
        teardown = w.teardown();
        outgoing = w.outgoing();
        registration = w.registration();
        when(ua.newCallId()).thenReturn("call-1");
        when(ua.addresses()).thenReturn(SipFixtures.ADDRESSES);
        SipURI target = SipFixtures.ADDRESSES.createSipURI("ue1", "ims.lab");
        when(requests.targetUri("ue1")).thenReturn(target);
        when(requests.targetUri("bad target")).thenThrow(new java.text.ParseException("bad", 0));
        when(requests.targetUri("sip:ue1@127.0.0.1:5080")).thenThrow(new org.webrtcims.gw.sip.SipRequests.TargetRefused(
                "cannot call 'sip:ue1@127.0.0.1:5080': only users of ims.lab and tel: numbers may be called"));
        when(requests.aor("alice")).thenReturn(SipFixtures.ADDRESSES.createAddress(SipFixtures.ADDRESSES.createSipURI("alice", "ims.lab")));
        invite = SipFixtures.request(Request.INVITE, "ue1", "call-1", "atag", null, 1, "v=0 ims-offer");
        when(requests.newRequest(eq(Request.INVITE), any(), any(), anyString(), any(), eq("call-1"), eq(1L), eq("w-contact-of-alice"))).thenReturn(invite);
        when(legs.bridgeBrowserOffer(any(), anyString(), any())).thenReturn("v=0 ims-offer");
        when(legs.bridgeImsAnswer(any(), anyString())).thenReturn("v=0 browser-answer");
        when(ua.sendRequest(any(), any())).thenReturn(inviteTx);
        when(ua.headers()).thenReturn(SipFixtures.HEADERS);
        when(inviteTx.getDialog()).thenReturn(dialog);
    }

    private ResponseHandler place() throws Exception {
        outgoing.place("tok", "alice", "ue1", "v=0 browser-offer", null, false, null);
        ArgumentCaptor<ResponseHandler> h = ArgumentCaptor.forClass(ResponseHandler.class);
        verify(ua).sendRequest(eq(invite), h.capture());
        return h.getValue();
    }

    private void respond(ResponseHandler h, int code, String body) throws Exception {
        Response r = SipFixtures.MESSAGES.createResponse(code, invite);
        ((ToHeader) r.getHeader(ToHeader.NAME)).setTag("uetag");
        if (body != null) r.setContent(body, SipFixtures.HEADERS.createContentTypeHeader("application", "sdp"));
        h.onResponse(new ResponseEvent(new Object(), inviteTx, dialog, r));
    }

    private Call call() { return registry.find("call-1").orElseThrow(); }

    private List<Object> types() { return toBrowser.stream().map(m -> m.get("type")).toList(); }

    @Test
    void aCallIsRelayedUnlessItAsksForInjectedDtmfOrIsTranscoded() throws Exception {
        when(ua.newCallId()).thenReturn("call-1", "call-2", "call-3");
        when(requests.newRequest(eq(Request.INVITE), any(), any(), anyString(), any(), anyString(), eq(1L), eq("w-contact-of-alice"))).thenReturn(invite);
        assertFalse(outgoing.place("tok", "alice", "ue1", "v=0 browser-offer", null, false, null).media().injectDtmf(), "pure relaying by default");
        assertTrue(outgoing.place("tok", "alice", "ue1", "v=0 browser-offer", null, true, null).media().injectDtmf(), "dtmf: inject");
        assertTrue(outgoing.place("tok", "alice", "ue1", "v=0 browser-offer", org.webrtcims.gw.media.ImsCodec.PCMA, false, null)
                .media().injectDtmf(), "transcoded anyway");
    }

    @Test
    void ringingThenAnswerAcksAndHandsTheBrowserRtpenginesSdp() throws Exception {
        ResponseHandler h = place();
        assertEquals("calling", toBrowser.get(0).get("type"));
        respond(h, 100, null);
        respond(h, 180, null);
        assertEquals(CallState.EARLY, call().state());
        Request ack = SipFixtures.request(Request.ACK, "ue1", "call-1", "atag", "uetag", 1, null);
        when(dialog.createAck(1L)).thenReturn(ack);
        respond(h, 200, "v=0 ims-answer");
        verify(dialog).sendAck(ack);
        verify(legs).bridgeImsAnswer(call(), "v=0 ims-answer");
        assertEquals(List.of("calling", "ringing", "answered"), types());
        assertEquals("v=0 browser-answer", toBrowser.get(2).get("sdp"));
        assertEquals("uetag", call().dialog().toTag());
        assertEquals(CallState.CONFIRMED, call().state());
        assertEquals(200, call().sipFinal());
        assertNotNull(call().setupMs());
        assertEquals(List.of("INVITE", "100", "180", "200", "ACK"), call().sipFlow());
        var m = metrics.registry();
        assertEquals(1, m.find("gw.call.attempts").tag("direction", "mo").counter().count());
        assertEquals(1, m.find("gw.call.answers").tag("direction", "mo").counter().count());
        assertEquals(1, m.find("gw.call.setup").tag("direction", "mo").timer().count());
        assertEquals(1, m.find("gw.calls.active").tag("direction", "mo").gauge().value());
        // the answer leaves with the call CONFIRMED, before its timers and meters (they are no step of the set-up)
        assertEquals(List.of("CONFIRMED answers=0"), atAnswered, "the call's state and the answers counted when `answered` left");
    }

    @Test
    void hangUpWhileRingingSendsCancel() throws Exception {
        ResponseHandler h = place();
        respond(h, 180, null);
        Request cancel = SipFixtures.request(Request.CANCEL, "ue1", "call-1", "atag", null, 1, null);
        when(inviteTx.createCancel()).thenReturn(cancel);
        teardown.hangUp(call(), "local-hangup");
        verify(ua).sendRequest(eq(cancel), any());
        verify(media).release(call());
        assertEquals("ended", toBrowser.get(toBrowser.size() - 1).get("type"));
        respond(h, 487, null); // the INVITE's final answer after the CANCEL changes nothing more
        assertEquals(1, types().stream().filter("ended"::equals).count());
    }

    @Test
    void rejectionEndsTheCallWithItsCodeAndFreesTheMedia() throws Exception {
        ResponseHandler h = place();
        respond(h, 486, null);
        Map<String, Object> ended = toBrowser.get(toBrowser.size() - 1);
        assertEquals("ended", ended.get("type"));
        assertEquals(486, ended.get("sipCode"));
        verify(media).release(call());
        var m = metrics.registry();
        assertEquals(1, m.find("gw.call.failures").tags("direction", "mo", "reason", "sip-486").counter().count());
        assertEquals(0, m.find("gw.call.answers").tag("direction", "mo").counter().count(), "a rejected call counted as answered");
        assertEquals(0, m.find("gw.calls.active").tag("direction", "mo").gauge().value());
    }

    @Test
    void noFinalAnswerInTimeCancelsAndEndsWith408() throws Exception {
        ResponseHandler h = place();
        respond(h, 180, null); // provisionals stop Timer B: only the gateway's own give-up ends this call
        ArgumentCaptor<Runnable> giveUp = ArgumentCaptor.forClass(Runnable.class);
        verify(timers).after(eq(30000L), giveUp.capture());
        when(inviteTx.createCancel()).thenReturn(SipFixtures.request(Request.CANCEL, "ue1", "call-1", "atag", null, 1, null));
        giveUp.getValue().run();
        verify(ua).sendRequest(argThat(r -> r.getMethod().equals(Request.CANCEL)), any());
        assertEquals(408, toBrowser.get(toBrowser.size() - 1).get("sipCode"));
        verify(media).release(call());
    }

    @Test
    void timeoutEndsWith408() throws Exception {
        place().onTimeout();
        assertEquals(408, toBrowser.get(toBrowser.size() - 1).get("sipCode"));
        assertEquals(CallState.ENDED, call().state());
    }

    @Test
    void answerWithoutSdpIsByedAndReported() throws Exception {
        ResponseHandler h = place();
        when(dialog.createAck(1L)).thenReturn(SipFixtures.request(Request.ACK, "ue1", "call-1", "atag", "uetag", 1, null));
        Request bye = SipFixtures.request(Request.BYE, "ue1", "call-1", "atag", "uetag", 2, null);
        when(dialog.createRequest(Request.BYE)).thenReturn(bye);
        respond(h, 200, null);
        verify(ua).sendInDialog(eq(dialog), eq(bye), any());
        assertTrue(types().contains("error"));
        assertEquals(CallState.ENDED, call().state());
    }

    @Test
    void theInviteGoesOutAsARegisteredIdentityNotTheLoginName() throws Exception {
        // login "alice", but the registration's default public user identity is another one (TS 24.229 §5.1.2A.1.1)
        when(registration.callerIdentity("alice", null)).thenReturn("sip:+15550100@ims.lab");
        place();
        ArgumentCaptor<javax.sip.address.Address> from = ArgumentCaptor.forClass(javax.sip.address.Address.class);
        verify(requests).newRequest(eq(Request.INVITE), any(), from.capture(), anyString(), any(), eq("call-1"), eq(1L), eq("w-contact-of-alice"));
        assertEquals("sip:+15550100@ims.lab", from.getValue().getURI().toString(), "From is the default identity");
        assertEquals("P-Preferred-Identity: <sip:+15550100@ims.lab>", invite.getHeader("P-Preferred-Identity").toString().trim());
    }

    @Test
    void theInvitesContactIsTheRegisteredContactUserNotTheLoginName() throws Exception {
        place(); // CallWiring: alice's registration has the contact user part "w-contact-of-alice"
        verify(requests).newRequest(eq(Request.INVITE), any(), any(), anyString(), any(), eq("call-1"), eq(1L), eq("w-contact-of-alice"));
        assertEquals("w-contact-of-alice", registry.find("call-1").orElseThrow().dialog().contactUser(),
                "the dialog's Contact (re-INVITE, UPDATE) uses the registration's contact user part");
        when(registration.contactUser("alice")).thenReturn(java.util.Optional.empty()); // logged out meanwhile
        CallFailure f = assertThrows(CallFailure.class, () -> outgoing.place("tok", "alice", "ue1", "v=0 browser-offer", null, false, null));
        assertEquals("bad-identity", f.code(), "a user without a registration has no contact to call from: " + f.getMessage());
    }

    @Test
    void theBrowserMayCallAsAnotherIdentityOfTheSetTelIncluded() throws Exception {
        when(registration.callerIdentity("alice", "tel:+15550100")).thenReturn("tel:+15550100");
        outgoing.place("tok", "alice", "ue1", "v=0 browser-offer", null, false, "tel:+15550100");
        ArgumentCaptor<javax.sip.address.Address> from = ArgumentCaptor.forClass(javax.sip.address.Address.class);
        verify(requests).newRequest(eq(Request.INVITE), any(), from.capture(), anyString(), any(), eq("call-1"), eq(1L), eq("w-contact-of-alice"));
        assertEquals("tel:+15550100", from.getValue().getURI().toString());
        assertEquals("P-Preferred-Identity: <tel:+15550100>", invite.getHeader("P-Preferred-Identity").toString().trim());
    }

    @Test
    void anIdentityOutsideTheRegisteredSetIsRefusedBeforeAnyMediaOrSip() {
        when(registration.callerIdentity("alice", "sip:boss@ims.lab")).thenThrow(new org.webrtcims.gw.sip.RegisteredIdentities.NotRegistered(
                "'sip:boss@ims.lab' is not one of your registered identities (sip:alice@ims.lab)"));
        CallFailure f = assertThrows(CallFailure.class,
                () -> outgoing.place("tok", "alice", "ue1", "v=0 browser-offer", null, false, "sip:boss@ims.lab"));
        assertEquals("bad-identity", f.code());
        assertTrue(f.getMessage().contains("not one of your registered identities"), f.getMessage());
        verifyNoInteractions(media);
        assertTrue(toBrowser.isEmpty(), "no `calling` for a call that never started: " + toBrowser);
        assertTrue(registry.find("call-1").isEmpty());
    }

    @Test
    void badTargetIsRefusedBeforeAnyMediaOrSip() throws Exception {
        CallFailure f = assertThrows(CallFailure.class, () -> outgoing.place("tok", "alice", "bad target", "v=0", null, false, null));
        assertEquals("bad-message", f.code());
        verifyNoInteractions(media);
        verify(ua, never()).sendRequest(any(), any());
    }

    @Test
    void aRawHostTargetIsRefusedWithItsOwnCodeBeforeAnyMediaOrSip() throws Exception {
        CallFailure f = assertThrows(CallFailure.class, () -> outgoing.place("tok", "alice", "sip:ue1@127.0.0.1:5080", "v=0", null, false, null));
        assertEquals("forbidden-target", f.code());
        assertTrue(f.getMessage().contains("sip:ue1@127.0.0.1:5080"), f.getMessage());
        verifyNoInteractions(media);
        verify(ua, never()).sendRequest(any(), any());
    }

    @Test
    void inviteThatCannotBeSentEndsTheCallAndTheErrorNamesIt() throws Exception {
        when(ua.sendRequest(any(), any())).thenThrow(new javax.sip.SipException("no route"));
        CallFailure f = assertThrows(CallFailure.class, () -> outgoing.place("tok", "alice", "ue1", "v=0 browser-offer", null, false, null));
        assertEquals("sip-failed", f.code());
        assertEquals("call-1", f.callId(), "the browser already holds this callId from `calling`");
        assertEquals(List.of("calling", "ended"), types());
        verify(media).release(call());
    }

    @Test
    void rtpengineFailureLeavesNoCallBehind() {
        when(legs.bridgeBrowserOffer(any(), anyString(), any())).thenThrow(new CallFailure("media-failed", "down"));
        assertThrows(CallFailure.class, () -> outgoing.place("tok", "alice", "ue1", "v=0", null, false, null));
        assertTrue(registry.find("call-1").isEmpty());
    }

    // ---- RFC 4028 session timers ----

    private static String header(javax.sip.message.Message m, String name) {
        String h = m.getHeader(name).toString().trim();
        return h.substring(h.indexOf(':') + 1).trim();
    }

    @Test
    void theInviteAsksForASessionTimerAndA422IsRetriedWithItsMinSe() throws Exception {
        when(inviteTx.getRequest()).thenReturn(invite);
        Request second = SipFixtures.request(Request.INVITE, "ue1", "call-1", "atag", null, 2, "v=0 ims-offer");
        ClientTransaction tx2 = mock(ClientTransaction.class);
        when(requests.newRequest(eq(Request.INVITE), any(), any(), anyString(), any(), eq("call-1"), eq(2L), eq("w-contact-of-alice"))).thenReturn(second);
        when(ua.sendRequest(eq(second), any())).thenReturn(tx2);
        when(tx2.getDialog()).thenReturn(dialog);
        ResponseHandler h = place();
        assertTrue(org.webrtcims.gw.sip.SipHeaders.supportsOrRequires(invite, "timer"));
        assertEquals("1800", header(invite, "Session-Expires"));
        assertEquals("90", header(invite, "Min-SE"));

        Response tooSmall = SipFixtures.MESSAGES.createResponse(422, invite);
        ((ToHeader) tooSmall.getHeader(ToHeader.NAME)).setTag("uetag422");
        tooSmall.addHeader(SipFixtures.HEADERS.createHeader("Min-SE", "3600"));
        h.onResponse(new ResponseEvent(new Object(), inviteTx, dialog, tooSmall));
        ArgumentCaptor<ResponseHandler> h2 = ArgumentCaptor.forClass(ResponseHandler.class);
        verify(ua).sendRequest(eq(second), h2.capture());
        assertEquals("3600", header(second, "Session-Expires"));
        assertEquals("3600", header(second, "Min-SE"));
        assertEquals(CallState.CALLING, call().state());
        assertFalse(types().contains("ended"), "the call goes on");
        assertNull(call().dialog().toTag(), "the 422's To tag is not the dialog's");

        // a 2xx without Session-Expires (a UAS without timers): the gateway refreshes at half the interval
        Response ok = SipFixtures.MESSAGES.createResponse(200, second);
        ((ToHeader) ok.getHeader(ToHeader.NAME)).setTag("uetag");
        ok.setContent("v=0 ims-answer", SipFixtures.HEADERS.createContentTypeHeader("application", "sdp"));
        when(dialog.createAck(2L)).thenReturn(SipFixtures.request(Request.ACK, "ue1", "call-1", "atag", "uetag", 2, null));
        h2.getValue().onResponse(new ResponseEvent(new Object(), tx2, dialog, ok));
        assertEquals(CallState.CONFIRMED, call().state());
        assertEquals(new SessionTimer.Interval(3600, true), call().timer().interval());
        verify(timers).after(eq(1_800_000L), any());
        assertEquals(List.of("INVITE", "422", "INVITE", "200", "ACK"), call().sipFlow());
    }

    @Test
    void aSecond422EndsTheCall() throws Exception {
        when(inviteTx.getRequest()).thenReturn(invite);
        when(requests.newRequest(eq(Request.INVITE), any(), any(), anyString(), any(), eq("call-1"), eq(2L), eq("w-contact-of-alice")))
                .thenReturn(SipFixtures.request(Request.INVITE, "ue1", "call-1", "atag", null, 2, "v=0 ims-offer"));
        ResponseHandler h = place();
        Response tooSmall = SipFixtures.MESSAGES.createResponse(422, invite);
        tooSmall.addHeader(SipFixtures.HEADERS.createHeader("Min-SE", "3600"));
        h.onResponse(new ResponseEvent(new Object(), inviteTx, dialog, tooSmall));
        h.onResponse(new ResponseEvent(new Object(), null, dialog, tooSmall));
        assertEquals(CallState.ENDED, call().state());
        assertEquals(422, call().sipFinal());
    }

    @Test
    void theInviteCarriesThePreferredIdentityOfTheUser() throws Exception {
        place();
        assertEquals("<sip:alice@ims.lab>", header(invite, "P-Preferred-Identity"));
    }

    // ---- early media without preconditions ----

    @Test
    void earlyMediaFromA183ThenTheChangedSdpOfThe200GoesToRtpengine() throws Exception {
        ResponseHandler h = place();
        String early = "v=0\r\no=ue1 1 1 IN IP4 127.0.0.1\r\nm=audio 6000 RTP/AVP 111\r\n";
        String changed = "v=0\r\no=ue1 1 2 IN IP4 127.0.0.1\r\nm=audio 6004 RTP/AVP 111\r\n";
        when(legs.bridgeImsAnswer(any(), eq(early))).thenAnswer(i -> {
            ((Call) i.getArgument(0)).media().tookImsSdp(early);
            return "v=0 browser-answer";
        });
        respond(h, 183, early);
        assertEquals(List.of("calling", "progress"), types());
        assertEquals("v=0 browser-answer", toBrowser.get(1).get("sdp"));
        assertEquals(183, toBrowser.get(1).get("sipCode"));
        when(dialog.createAck(1L)).thenReturn(SipFixtures.request(Request.ACK, "ue1", "call-1", "atag", "uetag", 1, null));
        respond(h, 200, changed);
        verify(legs).bridgeImsAnswer(call(), changed);
        assertEquals(CallState.CONFIRMED, call().state());
        assertEquals("v=0 browser-answer", toBrowser.get(2).get("sdp"), "the browser keeps the answer it has");
    }

    @Test
    void aSameSdpIn200AfterEarlyMediaIsNotSentAgain() throws Exception {
        ResponseHandler h = place();
        String early = "v=0\r\no=ue1 1 1 IN IP4 127.0.0.1\r\nm=audio 6000 RTP/AVP 111\r\n";
        when(legs.bridgeImsAnswer(any(), eq(early))).thenAnswer(i -> {
            ((Call) i.getArgument(0)).media().tookImsSdp(early);
            return "v=0 browser-answer";
        });
        respond(h, 183, early);
        when(dialog.createAck(1L)).thenReturn(SipFixtures.request(Request.ACK, "ue1", "call-1", "atag", "uetag", 1, null));
        respond(h, 200, early);
        verify(legs, times(1)).bridgeImsAnswer(any(), anyString());
        assertEquals(CallState.CONFIRMED, call().state());
    }

    // ---- forking (RFC 3261 §13.2.2.4) ----

    private Response fromFork(int code, String tag, String body) throws Exception {
        Response r = SipFixtures.MESSAGES.createResponse(code, invite);
        ((ToHeader) r.getHeader(ToHeader.NAME)).setTag(tag);
        if (body != null) r.setContent(body, SipFixtures.HEADERS.createContentTypeHeader("application", "sdp"));
        return r;
    }

    @Test
    void forkedEarlyDialogsTheFirst2xxWinsTheOtherForksIsAckedAndByed() throws Exception {
        ResponseHandler h = place();
        Dialog forkA = mock(Dialog.class);
        Dialog forkB = mock(Dialog.class);
        h.onResponse(new ResponseEvent(new Object(), inviteTx, forkB, fromFork(180, "tagB", null)));
        String sdpA = "v=0\r\no=ue5 1 1 IN IP4 127.0.0.1\r\nm=audio 6400 RTP/AVP 111\r\n";
        when(legs.bridgeImsAnswer(any(), eq(sdpA))).thenAnswer(i -> {
            ((Call) i.getArgument(0)).media().tookImsSdp(sdpA);
            return "v=0 browser-answer";
        });
        h.onResponse(new ResponseEvent(new Object(), inviteTx, forkA, fromFork(183, "tagA", sdpA)));
        assertEquals("tagA", call().dialog().toTag(), "the early dialog whose answer the browser got");
        assertEquals(forkA, call().dialog().sip());
        when(forkA.createAck(1L)).thenReturn(SipFixtures.request(Request.ACK, "ue1", "call-1", "atag", "tagA", 1, null));
        h.onResponse(new ResponseEvent(new Object(), inviteTx, forkA, fromFork(200, "tagA", sdpA)));
        assertEquals(CallState.CONFIRMED, call().state());
        verify(forkA).sendAck(any());
        verify(legs, times(1)).bridgeImsAnswer(any(), anyString());

        Request ackB = SipFixtures.request(Request.ACK, "ue1", "call-1", "atag", "tagB", 1, null);
        Request byeB = SipFixtures.request(Request.BYE, "ue1", "call-1", "atag", "tagB", 2, null);
        when(forkB.createAck(1L)).thenReturn(ackB);
        when(forkB.createRequest(Request.BYE)).thenReturn(byeB);
        h.onResponse(new ResponseEvent(new Object(), null, forkB, fromFork(200, "tagB", "v=0 other")));
        verify(forkB).sendAck(ackB);
        verify(ua).sendInDialog(eq(forkB), eq(byeB), any());
        assertEquals(CallState.CONFIRMED, call().state(), "the call goes on with fork A");
        assertEquals("tagA", call().dialog().toTag());
        assertEquals(forkA, call().dialog().sip());
        assertEquals(1, types().stream().filter("answered"::equals).count(), "the browser sees one call");
    }
}

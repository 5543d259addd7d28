package org.webrtcims.gw.call;

import org.webrtcims.gw.sip.SipFixtures;
import org.webrtcims.gw.sip.SipHeaders;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;
import org.webrtcims.gw.sip.SipRequests;
import org.webrtcims.gw.sip.SipUserAgent;

import javax.sip.Dialog;
import javax.sip.RequestEvent;
import javax.sip.ServerTransaction;
import javax.sip.SipProvider;
import javax.sip.header.ContactHeader;
import javax.sip.header.ToHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.nio.charset.StandardCharsets;
import java.util.*;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.ArgumentMatchers.*;
import static org.mockito.Mockito.*;

/**
 * The MT state machine: INVITE → incoming → answer → ACK → BYE, CANCEL, unknown user, deferred BYE;
 * and mid-call offers (MidCallOffers) on such a call: IMS re-INVITE/UPDATE ↔ browser `reoffer`/`reanswer`.
 */
class IncomingCallsTest {
    private static final String OFFER = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 6100 RTP/AVP 111\r\na=rtpmap:111 opus/48000/2\r\n";

    SipUserAgent ua = mock(SipUserAgent.class);
    SipRequests requests = mock(SipRequests.class);
    CallMedia media = mock(CallMedia.class);
    /** Each call\'s SDP exchanges (its media leg, ScriptedLegs). */
    ScriptedLegs.Exchanges legs = mock(ScriptedLegs.Exchanges.class);
    List<Map<String, Object>> toBrowser = Collections.synchronizedList(new ArrayList<>());
    CallEventSink sink = (token, msg) -> toBrowser.add(msg);
    org.webrtcims.gw.metrics.GatewayMetrics metrics = org.webrtcims.gw.metrics.GatewayMetrics.none();
    Map<String, String> loggedIn = new HashMap<>(Map.of("alice", "tok-alice"));
    CallTeardown teardown;
    IncomingCalls incoming;
    DialogRequests sip;
    ServerTransaction inviteTx = mock(ServerTransaction.class);
    Dialog dialog = mock(Dialog.class);
    LocalMediaWatch watch = mock(LocalMediaWatch.class);
    org.webrtcims.gw.config.GatewayProperties props = new org.webrtcims.gw.config.GatewayProperties();
    CallRegistry registry = new CallRegistry(metrics, props);
    MidCallOffers midCall;
    /** The user part of alice's registered Contact (sip/ContactUsers): what the P-CSCF sends her INVITEs to. */
    String aliceContact;
    org.webrtcims.gw.sip.ContactUsers contactUsers;

    private final CallTimers timers = new CallTimers();

    @BeforeEach
    void setUp() throws Exception {
        ScriptedLegs.install(media, legs);
        when(ua.response(anyInt(), any())).thenAnswer(i -> SipFixtures.MESSAGES.createResponse(i.getArgument(0), (Request) i.getArgument(1)));
        when(ua.headers()).thenReturn(SipFixtures.HEADERS);
        when(ua.serverTransaction(any())).thenAnswer(i -> ((RequestEvent) i.getArgument(0)).getServerTransaction());
        when(ua.existingServerTransaction(any())).thenAnswer(i -> ((RequestEvent) i.getArgument(0)).getServerTransaction());
        when(requests.contact(anyString())).thenAnswer(i -> SipFixtures.HEADERS.createContactHeader(
                SipFixtures.ADDRESSES.createAddress(SipFixtures.ADDRESSES.createSipURI(i.getArgument(0), "127.0.0.1"))));
        doAnswer(i -> {
            ((javax.sip.message.Message) i.getArgument(0)).setContent(i.getArgument(1),
                    SipFixtures.HEADERS.createContentTypeHeader("application", "sdp"));
            return null;
        }).when(requests).setSdpBody(any(), anyString());
        when(legs.bridgeImsOffer(any(), anyString())).thenReturn("v=0 browser-offer");
        when(legs.bridgeBrowserAnswer(any(), anyString())).thenReturn("v=0 ims-answer");
        when(inviteTx.getDialog()).thenReturn(dialog);
        props.getIms().setReofferTimeoutMs(300);
        CallWiring w = CallWiring.of(ua, requests, media, sink, registry, u -> Optional.ofNullable(loggedIn.get(u)),
                watch, timers, props);
        aliceContact = w.contactUsers().issue("alice");
        contactUsers = w.contactUsers();
        teardown = w.teardown();
        midCall = w.midCall();
        incoming = w.incoming();
        sip = w.sip();
    }

    private Request invite() throws Exception {
        Request r = atContact(SipFixtures.request(Request.INVITE, "alice", "call-1", "ue2tag", null, 1, OFFER));
        when(inviteTx.getRequest()).thenReturn(r);
        sip.onRequest(new RequestEvent(mock(SipProvider.class), inviteTx, null, r));
        return r;
    }

    /** The request sent to alice's registered Contact, as the P-CSCF sends it (Request-URI user = its user part). */
    private Request atContact(Request r) throws java.text.ParseException {
        ((javax.sip.address.SipURI) r.getRequestURI()).setUser(aliceContact);
        return r;
    }

    private List<Response> responses(ServerTransaction st) throws Exception {
        ArgumentCaptor<Response> c = ArgumentCaptor.forClass(Response.class);
        verify(st, atLeast(0)).sendResponse(c.capture());
        return c.getAllValues();
    }

    private void inDialog(String method, ServerTransaction st) throws Exception {
        Request r = SipFixtures.request(method, "alice", "call-1", "ue2tag", ourTag(), 2, null);
        if (st != null) when(st.getRequest()).thenReturn(r); // as a real server transaction does (an ACK has none)
        sip.onRequest(new RequestEvent(mock(SipProvider.class), st, dialog, r));
    }

    private Call call() { return registry.find("call-1").orElseThrow(); }

    /** The gateway's To tag of call-1: in-dialog requests must carry it (dialogs match on Call-ID + tags). */
    private String ourTag() { return registry.find("call-1").map(c -> c.dialog().toTag()).orElse("x"); }

    @Test
    void quotasRefuseAnInviteBeforeRtpengine() throws Exception {
        props.getLimits().setCallsPerUser(0);
        invite();
        assertEquals(List.of(100, 486), responses(inviteTx).stream().map(Response::getStatusCode).toList());
        verify(legs, never()).bridgeImsOffer(any(), anyString());
        assertTrue(toBrowser.isEmpty());
    }

    @Test
    void anInviteWithTooManyMlinesGets488() throws Exception {
        props.getLimits().setMlinesPerSdp(0);
        invite();
        assertEquals(List.of(100, 488), responses(inviteTx).stream().map(Response::getStatusCode).toList());
        verify(legs, never()).bridgeImsOffer(any(), anyString());
    }

    /** An INVITE as a third-party phone sends it: empty Supported and Require, repeated/compact headers, no Content-Length. */
    private Request phoneInvite(String callId, String headers) throws Exception {
        Request r = (Request) SipFixtures.parse("INVITE sip:" + aliceContact + "@127.0.0.1:5070 SIP/2.0\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bK-phone1;rport\n"
                + "Max-Forwards: 69\nFrom: \"Dave\" <sip:dave@ims.lab>;tag=ue2tag\nTo: <sip:alice@ims.lab>\n"
                + "i: " + callId + "\nCSeq: 20 INVITE\nm: <sip:dave@127.0.0.1:5999;transport=udp>\n" + headers
                + "c: application/sdp\n\n" + OFFER);
        when(inviteTx.getRequest()).thenReturn(r);
        return r;
    }

    @Test
    void aPhonesInviteWithEmptyAndRepeatedOptionHeadersRingsTheBrowser() throws Exception {
        int n = 0;
        for (String headers : List.of(
                "Supported:\nRequire:\nAllow:\nAllow-Events:\n",
                "Supported: replaces, outbound, gruu\nk: 100rel\nSupported:\nAllow: INVITE, ACK, CANCEL, BYE\nAllow: UPDATE\n"
                        + "u: presence, kpml, talk\nSession-Expires: 1800\nMin-SE: 90\nUser-Agent: baresip v3\n")) {
            toBrowser.clear();
            clearInvocations(inviteTx);
            Request r = phoneInvite("phone-" + n++, headers);
            sip.onRequest(new RequestEvent(mock(SipProvider.class), inviteTx, null, r));
            assertEquals(List.of(100, 180), responses(inviteTx).stream().map(Response::getStatusCode).toList(),
                    "an INVITE with " + headers.replace("\n", " | ") + " must ring, not fail");
            assertEquals("incoming", toBrowser.get(0).get("type"), "the browser is told of the call: " + toBrowser);
            assertEquals("v=0 browser-offer", toBrowser.get(0).get("sdp"),
                    "the SDP was read (over UDP without Content-Length too, RFC 3261 §18.3), not taken for an offerless INVITE");
            verify(ua, never()).answerFailure(any(), any());
        }
    }

    @Test
    void anAnswerRtpengineCannotTakeWhileItIsDownIs503NotA500() throws Exception {
        invite();
        when(legs.bridgeBrowserAnswer(any(), anyString())).thenThrow(new CallFailure("media-failed", "rtpengine down"));
        when(media.unavailable()).thenReturn(true);
        assertThrows(CallFailure.class, () -> incoming.answer(call(), "v=0 browser-answer"));
        assertEquals(List.of(100, 180, 503), responses(inviteTx).stream().map(Response::getStatusCode).toList(),
                "rtpengine down: 503, the IMS may try elsewhere");
    }

    @Test
    void aCallerWithoutAUserPartIsShownAsItsHost() throws Exception {
        Request r = phoneInvite("anon-1", "Supported:\n");
        r.setHeader(SipFixtures.HEADERS.createFromHeader(SipFixtures.ADDRESSES.createAddress(
                SipFixtures.ADDRESSES.createSipURI(null, "anonymous.invalid")), "anontag"));
        sip.onRequest(new RequestEvent(mock(SipProvider.class), inviteTx, null, r));
        assertEquals("anonymous.invalid", toBrowser.get(0).get("from"), "no 'null@' in the caller: " + toBrowser);
    }

    @Test
    void aHandlerFailureIsAnsweredByTheUaNotLeftUnansweredAndEndsTheCall() throws Exception {
        RuntimeException boom = new IllegalStateException("boom");
        when(legs.bridgeImsOffer(any(), anyString())).thenThrow(boom);
        invite();
        verify(ua).answerFailure(any(), same(boom));
        Call c = call();
        assertEquals(CallState.ENDED, c.state(), "the call the failed INVITE created ends");
        assertEquals("sip-failed", c.endReason());
        assertEquals(400, c.sipFinal(), "a runtime failure on the peer's request is a 400, not a 500");
    }

    @Test
    void inviteAlertsTheBrowserAndRingsWithATagAndContact() throws Exception {
        invite();
        List<Response> sent = responses(inviteTx);
        assertEquals(List.of(100, 180), sent.stream().map(Response::getStatusCode).toList());
        Response ringing = sent.get(1);
        assertNotNull(((ToHeader) ringing.getHeader(ToHeader.NAME)).getTag());
        assertNotNull(ringing.getHeader(ContactHeader.NAME));
        assertEquals("incoming", toBrowser.get(0).get("type"));
        assertEquals("v=0 browser-offer", toBrowser.get(0).get("sdp"));
        assertEquals("ue2@ims.lab", toBrowser.get(0).get("from"));
        assertEquals(CallState.INCOMING, call().state());
    }

    @Test
    void answerAckByeRunTheWholeCall() throws Exception {
        invite();
        Call c = call();
        incoming.answer(c, "v=0 browser-answer");
        Response ok = responses(inviteTx).get(2);
        assertEquals(200, ok.getStatusCode());
        assertEquals("v=0 ims-answer", new String(ok.getRawContent(), StandardCharsets.UTF_8));
        assertEquals(c.dialog().toTag(), ((ToHeader) ok.getHeader(ToHeader.NAME)).getTag());
        assertEquals(CallState.ANSWERING, c.state());
        assertNull(c.setupMs());
        var m = metrics.registry();
        assertEquals(1, m.find("gw.call.answers").tag("direction", "mt").counter().count()); // MT: INVITE → our 200
        assertEquals(1, m.find("gw.call.setup").tag("direction", "mt").timer().count());

        inDialog(Request.ACK, null);
        assertEquals(CallState.CONFIRMED, c.state());
        assertNotNull(c.setupMs());

        ServerTransaction byeTx = mock(ServerTransaction.class);
        inDialog(Request.BYE, byeTx);
        assertEquals(200, responses(byeTx).get(0).getStatusCode());
        assertEquals(CallState.ENDED, c.state());
        verify(media).release(c);
        Map<String, Object> ended = toBrowser.get(toBrowser.size() - 1);
        assertEquals("ended", ended.get("type"));
        assertEquals("remote-hangup", ended.get("reason"));
        assertEquals(List.of("INVITE", "100", "180", "200", "ACK", "BYE", "200"), c.sipFlow());
        assertEquals(1, m.find("gw.calls.ended").tags("direction", "mt", "reason", "remote-hangup").counter().count());
        assertNull(m.find("gw.call.failures").counter());
        assertEquals(0, m.find("gw.calls.active").tag("direction", "mt").gauge().value());
    }

    @Test
    void answerWithInjectedDtmfMarksTheCallBeforeRtpenginesAnswer() throws Exception {
        invite();
        Call c = call();
        incoming.answer(c, "v=0 browser-answer", true, null);
        var order = org.mockito.Mockito.inOrder(legs);
        order.verify(legs).injectDtmfBeforeAnswer(c);
        order.verify(legs).bridgeBrowserAnswer(c, "v=0 browser-answer");
    }

    @Test
    void aRepeatedAckForARetransmitted200IsRecordedOnce() throws Exception {
        invite();
        Call c = call();
        incoming.answer(c, "v=0 browser-answer");
        inDialog(Request.ACK, null);
        inDialog(Request.ACK, null);
        assertEquals(List.of("INVITE", "100", "180", "200", "ACK"), c.sipFlow());
        assertEquals(CallState.CONFIRMED, c.state());
    }

    @Test
    void answeringTwiceIsRefused() throws Exception {
        invite();
        incoming.answer(call(), "v=0 a");
        CallFailure f = assertThrows(CallFailure.class, () -> incoming.answer(call(), "v=0 a"));
        assertEquals("bad-message", f.code());
    }

    @Test
    void inviteForAUserNotLoggedInGets480AndNoMedia() throws Exception {
        loggedIn.clear();
        invite();
        assertEquals(List.of(100, 480), responses(inviteTx).stream().map(Response::getStatusCode).toList());
        verifyNoInteractions(media);
        assertTrue(registry.find("call-1").isEmpty());
    }

    /**
     * A scanner's guesses (svwar: INVITE sip:LOGIN@gw): the login name of a logged-in user, an unknown name and a
     * released (logged-out) contact user part all get exactly what a user who is not logged in gets.
     */
    @Test
    void anInviteToTheLoginNameOrAnUnknownContactUserIsAnsweredAsAnUnknownUser() throws Exception {
        List<String> answers = new ArrayList<>();
        String released = contactUsers.issue("alice");
        contactUsers.release(released);
        for (String user : List.of("alice", "nobody", released, "w" + "0".repeat(32))) {
            ServerTransaction tx = mock(ServerTransaction.class);
            Request r = SipFixtures.request(Request.INVITE, user, "call-" + user, "ue2tag", null, 1, OFFER);
            when(tx.getRequest()).thenReturn(r);
            sip.onRequest(new RequestEvent(mock(SipProvider.class), tx, null, r));
            answers.add(user + ": " + responses(tx).stream().map(x -> x.getStatusCode() + " " + x.getReasonPhrase()).toList());
        }
        loggedIn.clear();
        invite(); // alice's real contact while she is not logged in: the reference answer
        String notLoggedIn = responses(inviteTx).stream().map(x -> x.getStatusCode() + " " + x.getReasonPhrase()).toList().toString();
        for (String a : answers) {
            assertEquals(notLoggedIn, a.substring(a.indexOf(": ") + 2),
                    "an INVITE to a guessed or stale contact user must be answered as one to a user who is not logged in: " + a);
        }
        verifyNoInteractions(media);
        assertTrue(toBrowser.isEmpty(), "no browser may ring for a guessed contact user: " + toBrowser);
    }

    @Test
    void cancelWhileRingingAnswers487AndEndsTheCall() throws Exception {
        invite();
        ServerTransaction cancelTx = mock(ServerTransaction.class);
        inDialog(Request.CANCEL, cancelTx);
        assertEquals(200, responses(cancelTx).get(0).getStatusCode());
        assertEquals(487, responses(inviteTx).get(2).getStatusCode());
        assertEquals(CallState.ENDED, call().state());
        verify(media).release(call());
        assertEquals(487, toBrowser.get(toBrowser.size() - 1).get("sipCode"));
    }

    @Test
    void browserRejectWhileRingingSends603() throws Exception {
        invite();
        teardown.hangUp(call(), "local-hangup");
        assertEquals(603, responses(inviteTx).get(2).getStatusCode());
        assertEquals(CallState.ENDED, call().state());
    }

    @Test
    void hangUpBeforeTheAckDefersTheByeUntilTheAck() throws Exception {
        invite();
        incoming.answer(call(), "v=0 a");
        Request bye = SipFixtures.request(Request.BYE, "ue2", "call-1", "x", "ue2tag", 1, null);
        when(dialog.createRequest(Request.BYE)).thenReturn(bye);
        teardown.hangUp(call(), "local-hangup");
        verify(ua, never()).sendInDialog(any(), any(), any());
        assertEquals("ended", toBrowser.get(toBrowser.size() - 1).get("type"));
        inDialog(Request.ACK, null);
        verify(ua).sendInDialog(eq(dialog), eq(bye), any());
    }

    @Test
    void byeForAnUnknownCallGets481() throws Exception {
        ServerTransaction byeTx = mock(ServerTransaction.class);
        inDialog(Request.BYE, byeTx);
        assertEquals(481, responses(byeTx).get(0).getStatusCode());
    }

    // ---- mid-call offers ----

    private Call confirmed() throws Exception {
        invite();
        Call c = call();
        incoming.answer(c, "v=0 browser-answer");
        inDialog(Request.ACK, null);
        assertEquals(CallState.CONFIRMED, c.state());
        c.media().reofferTaken("v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\nm=audio 30000 RTP/AVP 111\r\na=sendrecv\r\n");
        toBrowser.clear();
        return c;
    }

    private ServerTransaction imsReoffer(String method, String sdp) throws Exception {
        ServerTransaction st = mock(ServerTransaction.class);
        Request r = SipFixtures.request(method, "alice", "call-1", "ue2tag", ourTag(), 2, sdp);
        when(st.getRequest()).thenReturn(r);
        sip.onRequest(new RequestEvent(mock(SipProvider.class), st, dialog, r));
        return st;
    }

    @Test
    void anImsReofferWithTooManyMlinesGets488AndTheCallGoesOn() throws Exception {
        Call c = confirmed();
        props.getLimits().setMlinesPerSdp(1);
        ServerTransaction st = imsReoffer(Request.INVITE, OFFER + "m=video 6102 RTP/AVP 96\r\na=rtpmap:96 VP8/90000\r\n");
        assertEquals(List.of(488), responses(st).stream().map(Response::getStatusCode).toList());
        verify(legs, never()).bridgeImsReoffer(any(), anyString());
        assertEquals(CallState.CONFIRMED, c.state());
    }

    @Test
    void imsReinviteIsOfferedToTheBrowserAndItsReanswerGoesBackIn200() throws Exception {
        Call c = confirmed();
        when(legs.bridgeImsReoffer(any(), anyString())).thenReturn("v=0 browser-reoffer");
        when(legs.bridgeBrowserReanswer(any(), anyString())).thenReturn("v=0 ims-reanswer");
        ServerTransaction st = imsReoffer(Request.INVITE, OFFER.replace("a=rtpmap", "a=sendonly\r\na=rtpmap"));
        assertTrue(responses(st).isEmpty(), "the 200 waits for the browser");
        assertEquals("reoffer", toBrowser.get(0).get("type"));
        assertEquals("v=0 browser-reoffer", toBrowser.get(0).get("sdp"));
        assertEquals("INVITE", toBrowser.get(0).get("method"));

        midCall.fromBrowserAnswer(c, "v=0 browser-reanswer");
        Response ok = responses(st).get(0);
        assertEquals(200, ok.getStatusCode());
        assertEquals("v=0 ims-reanswer", SipHeaders.sdp(ok));
        assertNotNull(ok.getHeader(ContactHeader.NAME));
        verify(legs).bridgeBrowserReanswer(c, "v=0 browser-reanswer");
        assertFalse(c.reofferPending());
    }

    @Test
    void secondReofferWhileOneIsPendingGets491AndAStrayReanswerIsRefused() throws Exception {
        Call c = confirmed();
        when(legs.bridgeImsReoffer(any(), anyString())).thenReturn("v=0 browser-reoffer");
        imsReoffer(Request.UPDATE, OFFER);
        ServerTransaction second = imsReoffer(Request.INVITE, OFFER);
        assertEquals(491, responses(second).get(0).getStatusCode());
        CallFailure f = assertThrows(CallFailure.class, () -> midCall.fromBrowser(c, OFFER));
        assertEquals("bad-state", f.code());
        midCall.fromBrowserAnswer(c, "v=0 a");
        assertEquals("bad-state", assertThrows(CallFailure.class, () -> midCall.fromBrowserAnswer(c, "v=0 a")).code());
    }

    @Test
    void offerlessReinviteGetsTheCurrentSdpAsOffer() throws Exception {
        Call c = confirmed();
        ServerTransaction st = imsReoffer(Request.INVITE, null);
        Response ok = responses(st).get(0);
        assertEquals(200, ok.getStatusCode());
        assertEquals(c.media().imsMediaSdp(), SipHeaders.sdp(ok));
        assertTrue(toBrowser.isEmpty());
    }

    @Test
    void browserSilenceRefusesTheImsReofferWith488AndKeepsTheCall() throws Exception {
        Call c = confirmed();
        when(legs.bridgeImsReoffer(any(), anyString())).thenReturn("v=0 browser-reoffer");
        ServerTransaction st = imsReoffer(Request.INVITE, OFFER);
        // the timer thread sends the 488 first and tells the browser right after: wait for both
        java.util.function.BooleanSupplier told = () -> {
            synchronized (toBrowser) {
                return toBrowser.stream().anyMatch(m -> "reoffer-failed".equals(m.get("code")));
            }
        };
        long until = System.currentTimeMillis() + 3000;
        while ((responses(st).isEmpty() || !told.getAsBoolean()) && System.currentTimeMillis() < until) Thread.sleep(20);
        assertEquals(488, responses(st).get(0).getStatusCode());
        assertEquals("reoffer-failed", toBrowser.get(toBrowser.size() - 1).get("code"));
        assertEquals(CallState.CONFIRMED, c.state());
        assertFalse(c.reofferPending());
    }

    @Test
    void hangingUpWithAnImsReofferPendingAnswersIt487() throws Exception {
        Call c = confirmed();
        when(legs.bridgeImsReoffer(any(), anyString())).thenReturn("v=0 browser-reoffer");
        when(dialog.createRequest(Request.BYE)).thenReturn(SipFixtures.request(Request.BYE, "ue2", "call-1", "x", "ue2tag", 3, null));
        ServerTransaction st = imsReoffer(Request.INVITE, OFFER);
        teardown.hangUp(c, "local-hangup");
        assertEquals(487, responses(st).get(0).getStatusCode());
    }

    @Test
    void browserReofferThatLeavesTheImsSdpAloneIsAnsweredWithoutSip() throws Exception {
        Call c = confirmed();
        c.media().tookImsSdp(OFFER);
        // an ICE restart: rtpengine's IMS-side SDP only gets a new o= version
        String restarted = c.media().imsMediaSdp().replace("o=- 1 1", "o=- 1 2"); // read before the stubbing: the leg is a spy
        when(legs.bridgeBrowserReoffer(any(), anyString())).thenReturn(restarted);
        when(legs.bridgeImsReanswer(any(), anyString())).thenReturn("v=0 browser-reanswer");
        midCall.fromBrowser(c, "v=0 restart");
        verify(legs).bridgeImsReanswer(c, OFFER);
        verify(ua, never()).sendInDialog(any(), any(), any());
        assertEquals("reanswer", toBrowser.get(0).get("type"));
        assertEquals(false, toBrowser.get(0).get("sipReoffer"));
    }

    /** The leg's refusal of a re-offer whose relay lost the call's session (MediaLeg's check before the ng offer). */
    private static CallFailure relayLost(Call c) {
        return new CallFailure(MediaLeg.MEDIA_LOST, "call " + c.id + " lost its media relay's session", c.id);
    }

    /** The BYE the call's dialog makes when the gateway ends the call. */
    private Request byeOnEnd() throws Exception {
        Request bye = SipFixtures.request(Request.BYE, "ue2", "call-1", "x", "ue2tag", 3, null);
        when(dialog.createRequest(Request.BYE)).thenReturn(bye);
        return bye;
    }

    /** The call ended media-lost at once: BYE toward IMS, `ended` to the browser. */
    private void assertEndedMediaLost(Call c, Request bye) throws Exception {
        assertEquals(CallState.ENDED, c.state(), "the call is ended, not left to the reconciler's next round");
        verify(ua).sendInDialog(eq(dialog), eq(bye), any());
        assertTrue(toBrowser.stream().anyMatch(m -> "ended".equals(m.get("type")) && "media-lost".equals(m.get("reason"))),
                "the browser is told the call ended media-lost: " + toBrowser);
    }

    @Test
    void browserReofferAfterTheRelayLostTheSessionEndsTheCallMediaLost() throws Exception {
        Call c = confirmed();
        // the page's ICE restart after its rtpengine restarted without the call: the leg refuses it before any ng offer
        when(legs.bridgeBrowserReoffer(any(), anyString())).thenThrow(relayLost(c));
        Request bye = byeOnEnd();
        CallFailure f = assertThrows(CallFailure.class, () -> midCall.fromBrowser(c, "v=0 restart"));
        assertEquals("media-lost", f.code(), "the browser's reoffer is answered with error media-lost");
        assertEndedMediaLost(c, bye);
    }

    @Test
    void imsReofferAfterTheRelayLostTheSessionGets488AndEndsTheCallMediaLost() throws Exception {
        Call c = confirmed();
        // an IMS re-INVITE after rtpengine restarted without the call: an ng offer would give IMS a new, empty session's ports
        when(legs.bridgeImsReoffer(any(), anyString())).thenThrow(relayLost(c));
        Request bye = byeOnEnd();
        ServerTransaction st = imsReoffer(Request.INVITE, OFFER.replace("a=rtpmap", "a=sendonly\r\na=rtpmap"));
        assertEquals(List.of(488), responses(st).stream().map(Response::getStatusCode).toList(),
                "the re-INVITE gets one final answer, 488, before the BYE");
        assertTrue(toBrowser.stream().noneMatch(m -> "reoffer".equals(m.get("type"))), "the browser is not asked: " + toBrowser);
        assertEndedMediaLost(c, bye);
    }

    @Test
    void anImsReofferTheLegRefusesForItsSdpGets488AndTheCallGoesOn() throws Exception {
        Call c = confirmed();
        when(legs.bridgeImsReoffer(any(), anyString())).thenThrow(new CallFailure("media-failed", "rtpengine offer failed: x", c.id));
        ServerTransaction st = imsReoffer(Request.INVITE, OFFER.replace("a=rtpmap", "a=sendonly\r\na=rtpmap"));
        assertEquals(List.of(488), responses(st).stream().map(Response::getStatusCode).toList());
        assertEquals(CallState.CONFIRMED, c.state(), "only a lost relay session ends the call");
    }

    @Test
    void browserHoldSendsAReinviteWithTheNewImsSdp() throws Exception {
        Call c = confirmed();
        String held = c.media().imsMediaSdp().replace("a=sendrecv", "a=sendonly");
        when(legs.bridgeBrowserReoffer(any(), anyString())).thenReturn(held);
        Request reinvite = SipFixtures.request(Request.INVITE, "ue2", "call-1", "x", "ue2tag", 2, null);
        when(dialog.createRequest(Request.INVITE)).thenReturn(reinvite);
        midCall.fromBrowser(c, "v=0 hold");
        verify(ua).sendInDialog(eq(dialog), eq(reinvite), any());
        assertEquals(held, SipHeaders.sdp(reinvite));
        assertTrue(c.reofferPending());
    }

    @Test
    void reofferBeforeTheCallIsAnsweredIsBadState() throws Exception {
        invite();
        assertEquals("bad-state", assertThrows(CallFailure.class, () -> midCall.fromBrowser(call(), OFFER)).code());
    }

    @Test
    void anAnsweredCallWhoseAckNeverComesIsEndedWithByeAndItsMediaReleased() throws Exception {
        invite();
        Call c = call();
        incoming.answer(c, "v=0 browser-answer");
        assertEquals(CallState.ANSWERING, c.state());
        when(dialog.getCallId()).thenReturn(SipFixtures.HEADERS.createCallIdHeader("call-1"));
        Request bye = SipFixtures.request(Request.BYE, "alice", "call-1", "ue2tag", c.dialog().toTag(), 2, null);
        when(dialog.createRequest(Request.BYE)).thenReturn(bye);

        sip.onDialogTimeout(dialog, "AckNotReceived");
        assertEquals(CallState.ENDED, c.state());
        verify(ua).sendInDialog(eq(dialog), eq(bye), any());
        verify(media).release(c);
        Map<String, Object> ended = toBrowser.get(toBrowser.size() - 1);
        assertEquals("ended", ended.get("type"));
        assertEquals("timeout", ended.get("reason"));
        assertEquals(List.of("INVITE", "100", "180", "200", "BYE"), c.sipFlow());

        sip.onDialogTerminated(dialog); // the stack deletes the dialog afterwards: nothing more happens
        verify(media, times(1)).release(c);
    }

    @Test
    void aHangUpDeferredUntilTheAckSendsItsByeWhenTheAckTimesOut() throws Exception {
        invite();
        Call c = call();
        incoming.answer(c, "v=0 browser-answer");
        teardown.hangUp(c, "local-hangup");
        assertEquals(CallState.ENDED, c.state());
        verify(ua, never()).sendInDialog(any(), any(), any());
        when(dialog.getCallId()).thenReturn(SipFixtures.HEADERS.createCallIdHeader("call-1"));
        Request bye = SipFixtures.request(Request.BYE, "alice", "call-1", "ue2tag", c.dialog().toTag(), 2, null);
        when(dialog.createRequest(Request.BYE)).thenReturn(bye);
        sip.onDialogTimeout(dialog, "AckNotReceived");
        verify(ua).sendInDialog(eq(dialog), eq(bye), any());
        assertEquals("local-hangup", c.endReason());
    }

    @Test
    void aTimedOutInviteServerTransactionEndsTheRingingCall() throws Exception {
        invite();
        Call c = call();
        assertEquals(CallState.INCOMING, c.state());
        sip.onServerTimeout(inviteTx);
        assertEquals(CallState.ENDED, c.state());
        assertEquals("timeout", c.endReason());
        verify(media).release(c);
    }

    @Test
    void aDialogTheStackDeletesUnderALiveCallEndsIt() throws Exception {
        invite();
        Call c = call();
        incoming.answer(c, "v=0 browser-answer");
        inDialog(Request.ACK, null);
        when(dialog.getCallId()).thenReturn(SipFixtures.HEADERS.createCallIdHeader("call-1"));
        Dialog fork = mock(Dialog.class); // another dialog of the same Call-ID: not this call's
        when(fork.getCallId()).thenReturn(SipFixtures.HEADERS.createCallIdHeader("call-1"));
        sip.onDialogTerminated(fork);
        assertEquals(CallState.CONFIRMED, c.state());
        sip.onDialogTerminated(dialog);
        assertEquals(CallState.ENDED, c.state());
        assertEquals("timeout", c.endReason());
    }

    @Test
    void anAnsweredCallIsHungUpAfterTheMaximumCallLength() throws Exception {
        props.getLimits().setMaxCallMs(200);
        Call c = answeredAndAcked();
        Request bye = dialog.createRequest(Request.BYE); // the BYE answeredAndAcked stubbed
        long until = System.currentTimeMillis() + 3000;
        while (!c.ended() && System.currentTimeMillis() < until) Thread.sleep(20);
        assertEquals(CallState.ENDED, c.state());
        assertEquals("max-duration", c.endReason());
        verify(ua).sendInDialog(eq(dialog), eq(bye), any());
    }

    @Test
    void anEndedCallLeavesNoMaximumLengthTimerBehind() throws Exception {
        props.getLimits().setMaxCallMs(3_600_000);
        Call c = answeredAndAcked();
        assertTrue(c.hasMaxLength(), "the limit is armed once the call is confirmed");
        assertTrue(timers.pending() >= 1, "the one-hour task is queued (beside the session timer's)");
        teardown.hangUp(c, "local-hangup");
        assertEquals(CallState.ENDED, c.state());
        assertFalse(c.hasMaxLength(), "the call's end cancels the limit");
        // a queued task held the call (its dialog, transactions, SDPs) until it fired: 4 h by default
        assertEquals(0, timers.pending(), "the ended call's timers left the queue");
    }

    /** An MT call the browser answered and the UE ACKed (no media-start watch): CONFIRMED, its BYE ready to build. */
    private Call answeredAndAcked() throws Exception {
        props.getRtpengine().setMediaStartTimeoutMs(0);
        invite();
        Call c = call();
        incoming.answer(c, "v=0 browser-answer");
        when(dialog.createRequest(Request.BYE)).thenReturn(byeOf(c));
        inDialog(Request.ACK, null);
        assertEquals(CallState.CONFIRMED, c.state(), "the ACK confirms the answered call");
        return c;
    }

    private Request byeOf(Call c) throws Exception {
        return SipFixtures.request(Request.BYE, "alice", "call-1", "ue2tag", c.dialog().toTag(), 2, null);
    }

    // ---- RFC 4028 session timers ----

    private Request inviteWith(String... headers) throws Exception {
        Request r = atContact(SipFixtures.request(Request.INVITE, "alice", "call-1", "ue2tag", null, 1, OFFER));
        for (int i = 0; i < headers.length; i += 2) r.addHeader(SipFixtures.HEADERS.createHeader(headers[i], headers[i + 1]));
        when(inviteTx.getRequest()).thenReturn(r);
        sip.onRequest(new RequestEvent(mock(SipProvider.class), inviteTx, null, r));
        return r;
    }

    @Test
    void aSessionIntervalUnderMinSeGets422WithMinSe() throws Exception {
        inviteWith("Supported", "timer", "Session-Expires", "30");
        List<Response> sent = responses(inviteTx);
        assertEquals(List.of(100, 422), sent.stream().map(Response::getStatusCode).toList());
        assertTrue(sent.get(1).getHeader("Min-SE").toString().contains("90"), sent.get(1).toString());
        verify(legs, never()).bridgeImsOffer(any(), anyString());
        assertTrue(registry.find("call-1").isEmpty());
    }

    @Test
    void theOkCarriesTheIntervalAndAnUnrefreshedSessionEndsWithBye() throws Exception {
        props.getIms().setMinSe(1);
        inviteWith("Supported", "timer", "Session-Expires", "1;refresher=uac");
        Call c = call();
        incoming.answer(c, "v=0 browser-answer");
        Response ok = responses(inviteTx).get(2);
        assertEquals(200, ok.getStatusCode());
        assertTrue(ok.getHeader("Session-Expires").toString().contains("1;refresher=uac"), ok.toString());
        assertTrue(SipHeaders.requires(ok, "timer"), "Require: timer to a UAC that supports it");
        assertTrue(SipHeaders.supportsOrRequires(ok, "timer"));
        Request bye = SipFixtures.request(Request.BYE, "ue2", "call-1", "x", "ue2tag", 2, null);
        when(dialog.createRequest(Request.BYE)).thenReturn(bye);
        inDialog(Request.ACK, null);
        Thread.sleep(400);
        verify(ua, never()).sendInDialog(any(), any(), any()); // the peer refreshes: nothing sent by the gateway
        // a refresh (UPDATE without SDP) restarts the watch and is answered with the interval
        ServerTransaction updTx = mock(ServerTransaction.class);
        Request upd = SipFixtures.request(Request.UPDATE, "alice", "call-1", "ue2tag", c.dialog().toTag(), 2, null);
        upd.addHeader(SipFixtures.HEADERS.createHeader("Session-Expires", "1;refresher=uac"));
        upd.addHeader(SipFixtures.HEADERS.createHeader("Supported", "timer"));
        when(updTx.getRequest()).thenReturn(upd);
        sip.onRequest(new RequestEvent(mock(SipProvider.class), updTx, dialog, upd));
        Response updOk = responses(updTx).get(0);
        assertEquals(200, updOk.getStatusCode());
        assertTrue(updOk.getHeader("Session-Expires").toString().contains("1;refresher=uac"));
        Thread.sleep(400);
        verify(ua, never()).sendInDialog(any(), any(), any());
        assertEquals(CallState.CONFIRMED, c.state());
        assertTrue(toBrowser.stream().noneMatch(m -> "reoffer".equals(m.get("type"))), "a refresh is not shown to the browser");
        Thread.sleep(600); // 667 ms after the refresh: expired
        verify(ua).sendInDialog(eq(dialog), eq(bye), any());
        assertEquals(CallState.ENDED, c.state());
        assertEquals(SessionTimers.EXPIRED, c.endReason());
        assertEquals(SessionTimers.EXPIRED, toBrowser.get(toBrowser.size() - 1).get("reason"));
    }

    @Test
    void anUnchangedImsReofferIsAnsweredWithoutTheBrowser() throws Exception {
        Call c = confirmed();
        c.media().tookImsSdp(OFFER);
        ServerTransaction reTx = mock(ServerTransaction.class);
        Request re = SipFixtures.request(Request.INVITE, "alice", "call-1", "ue2tag", c.dialog().toTag(), 2, OFFER);
        when(reTx.getRequest()).thenReturn(re);
        sip.onRequest(new RequestEvent(mock(SipProvider.class), reTx, dialog, re));
        Response ok = responses(reTx).get(0);
        assertEquals(200, ok.getStatusCode());
        assertEquals(c.media().imsMediaSdp(), new String(ok.getRawContent(), StandardCharsets.UTF_8));
        assertTrue(toBrowser.isEmpty(), String.valueOf(toBrowser));
        verify(legs, never()).bridgeImsReoffer(any(), anyString());
    }

    // ---- offerless (delayed-offer) INVITE, RFC 3261 §13.2.1 ----

    private Call offerlessAnswered() throws Exception {
        Request r = atContact(SipFixtures.request(Request.INVITE, "alice", "call-1", "ue2tag", null, 1, null));
        when(inviteTx.getRequest()).thenReturn(r);
        sip.onRequest(new RequestEvent(mock(SipProvider.class), inviteTx, null, r));
        assertEquals(List.of(100, 180), responses(inviteTx).stream().map(Response::getStatusCode).toList());
        Map<String, Object> incomingMsg = toBrowser.get(0);
        assertEquals("incoming", incomingMsg.get("type"));
        assertEquals(Boolean.TRUE, incomingMsg.get("offerless"));
        assertNull(incomingMsg.get("sdp"));
        verify(legs, never()).bridgeImsOffer(any(), anyString());
        Call c = call();
        when(legs.bridgeBrowserOffer(eq(c), anyString(), isNull())).thenReturn("v=0 ims-offer");
        incoming.answer(c, "v=0 browser-offer");
        verify(legs).bridgeBrowserOffer(c, "v=0 browser-offer", null);
        Response ok = responses(inviteTx).get(2);
        assertEquals(200, ok.getStatusCode());
        assertEquals("v=0 ims-offer", new String(ok.getRawContent(), StandardCharsets.UTF_8));
        assertEquals(CallState.ANSWERING, c.state());
        return c;
    }

    private void ackWith(String sdp) throws Exception {
        Request ack = SipFixtures.request(Request.ACK, "alice", "call-1", "ue2tag", ourTag(), 1, sdp);
        sip.onRequest(new RequestEvent(mock(SipProvider.class), null, dialog, ack));
    }

    @Test
    void offerlessInviteTheBrowserOffersAndTheAckCarriesTheAnswer() throws Exception {
        Call c = offerlessAnswered();
        when(legs.bridgeImsAnswer(c, "v=0 ue-answer")).thenReturn("v=0 browser-answer");
        ackWith("v=0 ue-answer");
        assertEquals(CallState.CONFIRMED, c.state());
        Map<String, Object> last = toBrowser.get(toBrowser.size() - 1);
        assertEquals("answered", last.get("type"));
        assertEquals("v=0 browser-answer", last.get("sdp"));
    }

    @Test
    void offerlessInviteWhoseAckHasNoAnswerEndsWithBye() throws Exception {
        Call c = offerlessAnswered();
        Request bye = SipFixtures.request(Request.BYE, "ue2", "call-1", "x", "ue2tag", 2, null);
        when(dialog.createRequest(Request.BYE)).thenReturn(bye);
        ackWith(null);
        verify(ua).sendInDialog(eq(dialog), eq(bye), any());
        assertEquals(CallState.ENDED, c.state());
        assertEquals("bad-sdp", c.endReason());
    }

    @Test
    void theAssertedIdentitiesReachTheBrowser() throws Exception {
        inviteWith("P-Asserted-Identity", "\"Ue Two\" <sip:ue2@ims.lab>", "P-Asserted-Identity", "<tel:+4930123>");
        assertEquals(List.of("sip:ue2@ims.lab", "tel:+4930123"), toBrowser.get(0).get("assertedIdentity"));
        toBrowser.clear();
        registry.find("call-1").ifPresent(c -> teardown.hangUp(c, "local-hangup"));
    }
}

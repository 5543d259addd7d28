package org.webrtcims.gw.call;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.webrtcims.gw.media.DtmfLogEvent;
import org.webrtcims.gw.media.NgException;
import org.webrtcims.gw.media.RtpEngineClient;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyChar;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

class DtmfTest {
    private final List<String> owners = new ArrayList<>();
    private final List<Map<String, Object>> sent = new ArrayList<>();
    private final CallRegistry registry = new CallRegistry();
    private final RtpEngineClient rtp = mock(RtpEngineClient.class);
    private Dtmf relay;
    private static final String BROWSER_ANSWER = "v=0\r\no=- 1 1 IN IP4 198.18.0.2\r\ns=-\r\nc=IN IP4 198.18.0.2\r\nt=0 0\r\n"
            + "m=audio 50000 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/48000/2\r\na=setup:active\r\n"
            + "a=fingerprint:sha-256 AA:BB\r\na=candidate:1 1 UDP 2130706431 198.18.0.2 50000 typ host\r\n";
    private Call mo;
    private Call mt;

    @BeforeEach
    void setUp() {
        relay = new Dtmf(registry, (token, msg) -> {
            owners.add(token);
            sent.add(msg);
        });
        mo = mo(CallState.CONFIRMED);
        mt = mt(CallState.CONFIRMED);
        mt.media().injectDtmf(true);
        registry.add(mo);
        registry.add(mt);
    }

    private Call mo(CallState state) {
        Call c = new Call("mo-call", Direction.MO, "tok-a", "alice", "ue6@ims.lab", "browser-ft", state, rtp);
        c.dialog().followFirstFork(null, "ue-tt", true);
        c.media().choose(null, true);   // placed with dtmf: "inject"
        return c;
    }

    private Call mt(CallState state) {
        Call c = new Call("mt-call", Direction.MT, "tok-b", "bob", "ue2@ims.lab", "ue-ft", state, rtp);
        c.dialog().invitedBy(mock(javax.sip.ServerTransaction.class), "browser-tt", "w-contact");
        return c;
    }

    /** The IMS party's last SDP as the call keeps it (an IMS answer taken by rtpengine). */
    private void imsPartySent(Call c, String sdp) throws Exception {
        when(rtp.answerFromIms(anyString(), anyString(), anyString(), anyString(), any(), anyBoolean())).thenReturn("v=0\r\n");
        c.media().bridgeImsReanswer(sdp);
    }

    @Test
    void anEventFromTheImsPartyBecomesOneWebSocketDtmf() {
        relay.accept(new DtmfLogEvent("mo-call", "ue-tt", 11, 280));
        relay.accept(new DtmfLogEvent("mt-call", "ue-ft", 1, 100));
        assertEquals(List.of("tok-a", "tok-b"), owners);
        assertEquals(Map.of("type", "dtmf", "callId", "mo-call", "digit", "#", "durationMs", 280, "source", "ims"), sent.get(0));
        assertEquals("1", sent.get(1).get("digit"));
    }

    @Test
    void whatTheBrowserSideSentIsNotEchoedBack() {
        // rtpengine also logs the digits it injects for `play DTMF` and the browser's own RTCDTMFSender events
        relay.accept(new DtmfLogEvent("mo-call", "browser-ft", 1, 100));
        relay.accept(new DtmfLogEvent("mt-call", "browser-tt", 1, 100));
        assertEquals(List.of(), sent);
    }

    @Test
    void unknownCallsEndedCallsAndNonKeyEventsAreDropped() {
        relay.accept(new DtmfLogEvent("other-gateways-call", "x", 1, 100));
        relay.accept(new DtmfLogEvent("mo-call", "ue-tt", 16, 100)); // flash
        mt.end("remote-hangup");
        relay.accept(new DtmfLogEvent("mt-call", "ue-ft", 1, 100));
        assertEquals(List.of(), sent);
    }

    // ---- browser -> UE ----

    @Test
    void theBrowsersDigitsArePlayedOneByOneFromItsOwnSide() throws Exception {
        relay.fromBrowser(mo, DtmfRequest.of("1#", 160));
        relay.fromBrowser(mt, DtmfRequest.of("9", null));
        var order = inOrder(rtp);
        order.verify(rtp).playDtmf("mo-call", "browser-ft", '1', 160);
        order.verify(rtp).playDtmf("mo-call", "browser-ft", '#', 160);
        order.verify(rtp).playDtmf("mt-call", "browser-tt", '9', DtmfRequest.DEFAULT_DURATION_MS);
    }

    @Test
    void dtmfNeedsMediaBothWays() throws Exception {
        Call early = mo(CallState.EARLY); // no early answer (183 with SDP) yet
        assertEquals("bad-state", assertThrows(CallFailure.class, () -> relay.fromBrowser(early, DtmfRequest.of("1", null))).code());
        early.media().browserAnswered("v=0 early");
        relay.fromBrowser(early, DtmfRequest.of("1", null));
        Call ringing = mt(CallState.INCOMING);
        ringing.media().injectDtmf(true);
        assertEquals("bad-state", assertThrows(CallFailure.class, () -> relay.fromBrowser(ringing, DtmfRequest.of("1", null))).code());
        verify(rtp, times(1)).playDtmf(anyString(), anyString(), anyChar(), anyInt()); // the early-media one only
    }

    @Test
    void aRelayedCallRefusesWebSocketDtmfAndSaysHowToGetIt() throws Exception {
        Call relayed = mo(CallState.CONFIRMED);
        relayed.media().choose(null, false);   // the default: pure relaying
        CallFailure f = assertThrows(CallFailure.class, () -> relay.fromBrowser(relayed, DtmfRequest.of("1", null)));
        assertEquals("dtmf-unavailable", f.code());
        assertEquals("mo-call", f.callId());
        assertTrue(f.getMessage().contains("RTCDTMFSender") && f.getMessage().contains("dtmf: \"inject\""), f.getMessage());
        verify(rtp, never()).playDtmf(anyString(), anyString(), anyChar(), anyInt());
    }

    @Test
    void anImsLegWithTelephoneEventAtAnotherClockThanItsCodecIsRefusedWithTheReason() throws Exception {
        // ue2's default offer as the gateway answered it: Opus with telephone-event/8000 only
        String answered = "v=0\r\nm=audio 30000 RTP/AVP 111 101\r\na=rtpmap:111 opus/48000/2\r\na=rtpmap:101 telephone-event/8000\r\n";
        when(rtp.answerFromBrowser(anyString(), anyString(), anyString(), anyString())).thenReturn(answered);
        mt.media().bridgeBrowserReanswer(BROWSER_ANSWER);
        assertEquals(answered, mt.media().imsMediaSdp(), "the IMS leg as the gateway answered it");
        CallFailure f = assertThrows(CallFailure.class, () -> relay.fromBrowser(mt, DtmfRequest.of("1", null)));
        assertEquals("dtmf-unavailable", f.code());
        assertTrue(f.getMessage().contains("telephone-event/8000 beside opus/48000"), f.getMessage());
        // at the codec's clock, or none at all (in-band tones), rtpengine plays the digit
        imsPartySent(mo, "v=0\r\nm=audio 6500 RTP/AVP 111 110\r\na=rtpmap:111 opus/48000/2\r\na=rtpmap:110 telephone-event/48000\r\n");
        relay.fromBrowser(mo, DtmfRequest.of("2", null));
        imsPartySent(mo, "v=0\r\nm=audio 6000 RTP/AVP 8\r\na=rtpmap:8 PCMA/8000\r\n");
        relay.fromBrowser(mo, DtmfRequest.of("3", null));
        verify(rtp, times(2)).playDtmf(anyString(), anyString(), anyChar(), anyInt());
        assertEquals(null, Dtmf.telephoneEventClockMismatch("v=0\r\nm=audio 6000 RTP/AVP 8 101\r\na=rtpmap:8 PCMA/8000\r\na=rtpmap:101 telephone-event/8000\r\n"));
    }

    @Test
    void aRefusedDigitIsDtmfFailedNamingIt() throws Exception {
        doThrow(new NgException(NgException.Kind.ERROR_RESULT, "no media")).when(rtp).playDtmf("mo-call", "browser-ft", '2', 100);
        CallFailure f = assertThrows(CallFailure.class, () -> relay.fromBrowser(mo, DtmfRequest.of("12", null)));
        assertEquals("dtmf-failed", f.code());
        assertTrue(f.getMessage().contains("'2'"), f.getMessage());
    }

    @Test
    void asADialogExtensionItAsksForInjectionOnlyWhenTheBrowsersMtAnswerDoes() {
        Call offerless = new Call("mt-offerless", Direction.MT, "tok", "bob", "ue2@ims.lab", "ue-ft2", CallState.INCOMING);
        offerless.markOfferless();
        relay.browserAnswering(offerless, false);
        assertFalse(offerless.media().injectDtmf(), "not asked for: relayed");
        relay.browserAnswering(offerless, true);
        assertTrue(offerless.media().injectDtmf(), "offerless: the browser's offer carries the flag");
    }
}

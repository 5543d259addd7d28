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

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.anyChar;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;

class DtmfTest {
    private final List<String> owners = new ArrayList<>();
    private final List<Map<String, Object>> sent = new ArrayList<>();
    private final CallRegistry registry = new CallRegistry();
    private final RtpEngineClient rtp = mock(RtpEngineClient.class);
    private Dtmf relay;
    private Call mo;
    private Call mt;

    @BeforeEach
    void setUp() {
        relay = new Dtmf(registry, (token, msg) -> {
            owners.add(token);
            sent.add(msg);
        }, rtp);
        mo = new Call("mo-call", Direction.MO, "tok-a", "alice", "ue6@ims.lab", "browser-ft", CallState.CONFIRMED);
        mo.toTag = "ue-tt";
        mt = new Call("mt-call", Direction.MT, "tok-b", "bob", "ue2@ims.lab", "ue-ft", CallState.CONFIRMED);
        mt.toTag = "browser-tt";
        mo.sdp.injectDtmf = true;   // placed with dtmf: "inject"
        mt.sdp.injectDtmf = true;
        registry.add(mo);
        registry.add(mt);
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
        mt.state = CallState.ENDED;
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
        mo.state = CallState.EARLY; // no early answer (183 with SDP) yet
        assertEquals("bad-state", assertThrows(CallFailure.class, () -> relay.fromBrowser(mo, DtmfRequest.of("1", null))).code());
        mo.sdp.browserAnswer = "v=0 early";
        relay.fromBrowser(mo, DtmfRequest.of("1", null));
        mt.state = CallState.INCOMING;
        assertEquals("bad-state", assertThrows(CallFailure.class, () -> relay.fromBrowser(mt, DtmfRequest.of("1", null))).code());
        verify(rtp, times(1)).playDtmf(anyString(), anyString(), anyChar(), anyInt()); // the early-media one only
    }

    @Test
    void aRelayedCallRefusesWebSocketDtmfAndSaysHowToGetIt() throws Exception {
        mo.sdp.injectDtmf = false;   // the default: pure relaying
        CallFailure f = assertThrows(CallFailure.class, () -> relay.fromBrowser(mo, DtmfRequest.of("1", null)));
        assertEquals("dtmf-unavailable", f.code());
        assertEquals("mo-call", f.callId());
        assertTrue(f.getMessage().contains("RTCDTMFSender") && f.getMessage().contains("dtmf: \"inject\""), f.getMessage());
        verify(rtp, never()).playDtmf(anyString(), anyString(), anyChar(), anyInt());
    }

    @Test
    void anImsLegWithTelephoneEventAtAnotherClockThanItsCodecIsRefusedWithTheReason() throws Exception {
        // ue2's default offer as the gateway answered it: Opus with telephone-event/8000 only
        mt.sdp.imsMediaSdp = "v=0\r\nm=audio 30000 RTP/AVP 111 101\r\na=rtpmap:111 opus/48000/2\r\na=rtpmap:101 telephone-event/8000\r\n";
        CallFailure f = assertThrows(CallFailure.class, () -> relay.fromBrowser(mt, DtmfRequest.of("1", null)));
        assertEquals("dtmf-unavailable", f.code());
        assertTrue(f.getMessage().contains("telephone-event/8000 beside opus/48000"), f.getMessage());
        // at the codec's clock, or none at all (in-band tones), rtpengine plays the digit
        mo.sdp.imsRemoteSdp = "v=0\r\nm=audio 6500 RTP/AVP 111 110\r\na=rtpmap:111 opus/48000/2\r\na=rtpmap:110 telephone-event/48000\r\n";
        relay.fromBrowser(mo, DtmfRequest.of("2", null));
        mo.sdp.imsRemoteSdp = "v=0\r\nm=audio 6000 RTP/AVP 8\r\na=rtpmap:8 PCMA/8000\r\n";
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
}

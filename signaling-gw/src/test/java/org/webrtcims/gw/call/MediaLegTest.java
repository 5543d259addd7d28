package org.webrtcims.gw.call;

import org.webrtcims.gw.sdp.DtlsRole;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.ArgumentMatchers.isNull;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import org.junit.jupiter.api.Test;
import org.webrtcims.gw.media.ImsCodec;
import org.webrtcims.gw.media.RtpEngineClient;

/**
 * A call's media leg against a mocked relay: the commands it sends rtpengine (tags, flags), what it keeps for later
 * exchanges, the per-call DTMF policy (relayed unless asked for or transcoded anyway) and the release off the caller's thread.
 */
class MediaLegTest {
    private static final String OPUS_OFFER = "v=0\r\nm=audio 6100 RTP/AVP 111 110\r\na=rtpmap:111 opus/48000/2\r\n"
            + "a=rtpmap:110 telephone-event/48000\r\n";
    private static final String PCMA_OFFER = "v=0\r\nm=audio 6100 RTP/AVP 8 101\r\na=rtpmap:8 PCMA/8000\r\n"
            + "a=rtpmap:101 telephone-event/8000\r\n";
    private final RtpEngineClient rtp = mock(RtpEngineClient.class);
    private final CallMedia media = new CallMedia(rtp);
    private static final String BROWSER_OFFER = "v=0\r\no=- 1 1 IN IP4 198.18.0.2\r\ns=-\r\nc=IN IP4 198.18.0.2\r\nt=0 0\r\n"
            + "m=audio 50000 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/48000/2\r\na=setup:actpass\r\n"
            + "a=fingerprint:sha-256 AA:BB\r\na=candidate:1 1 UDP 2130706431 198.18.0.2 50000 typ host\r\n";

    private static final String BROWSER_ANSWER = BROWSER_OFFER.replace("a=setup:actpass", "a=setup:active");

    private Call mt() {
        Call c = new Call("mt-1", Direction.MT, "tok", "bob", "ue2@ims.lab", "ue-ft", CallState.INCOMING, rtp);
        c.dialog().invitedBy(mock(javax.sip.ServerTransaction.class), "browser-tt", "w-contact");
        return c;
    }

    @Test
    void anMtCallOfferingOpusIsRelayedAndOneWithoutOpusTakesInjectedDtmf() throws Exception {
        when(rtp.offerFromIms(anyString(), anyString(), isNull(), anyString(), anyBoolean())).thenReturn("v=0 to-browser");
        Call relayed = mt();
        relayed.media().bridgeImsOffer(OPUS_OFFER);
        verify(rtp).offerFromIms("mt-1", "ue-ft", null, OPUS_OFFER, false);
        assertFalse(relayed.media().injectDtmf());
        Call transcoded = mt();
        transcoded.media().bridgeImsOffer(PCMA_OFFER);
        verify(rtp).offerFromIms("mt-1", "ue-ft", null, PCMA_OFFER, true);
        assertTrue(transcoded.media().injectDtmf(), "transcoded anyway: inject-DTMF costs nothing extra");
    }

    @Test
    void answeringWithInjectSendsTheOfferAgainWithTheFlag() throws Exception {
        when(rtp.offerFromIms(anyString(), anyString(), isNull(), anyString(), anyBoolean())).thenReturn("v=0 to-browser");
        Call c = mt();
        c.media().bridgeImsOffer(OPUS_OFFER);
        c.media().injectDtmfBeforeAnswer();
        verify(rtp).offerFromIms("mt-1", "ue-ft", null, OPUS_OFFER, true);
        assertTrue(c.media().injectDtmf());
        c.media().injectDtmfBeforeAnswer();   // once is enough
        verify(rtp, times(2)).offerFromIms(anyString(), anyString(), isNull(), anyString(), anyBoolean());
    }

    @Test
    void aReofferEitherWayFailsMediaLostWithoutAnOfferWhenTheRelaySaysTheCallIsUnknown() throws Exception {
        when(rtp.query(eq("mt-1"), any())).thenThrow(new org.webrtcims.gw.media.NgException(
                org.webrtcims.gw.media.NgException.Kind.ERROR_RESULT, "Unknown call-id"));
        Call c = mt();
        CallFailure fromIms = assertThrows(CallFailure.class, () -> c.media().bridgeImsReoffer(OPUS_OFFER),
                "an IMS re-INVITE/UPDATE after rtpengine restarted without the call must not reach its ng offer");
        assertEquals("media-lost", fromIms.code());
        CallFailure fromBrowser = assertThrows(CallFailure.class, () -> c.media().bridgeBrowserReoffer(BROWSER_OFFER),
                "the browser's re-offer likewise");
        assertEquals("media-lost", fromBrowser.code());
        verify(rtp, times(2)).query(eq("mt-1"), any());
        verify(rtp, never()).offerFromIms(anyString(), anyString(), any(), anyString(), anyBoolean());
        verify(rtp, never()).offerFromBrowser(anyString(), anyString(), any(), anyString(), any(), anyBoolean());
    }

    @Test
    void aReofferGoesOnWhenTheRelayHasTheSessionOrCannotTell() throws Exception {
        when(rtp.query(eq("mt-2"), any())).thenThrow(new org.webrtcims.gw.media.NgException(
                org.webrtcims.gw.media.NgException.Kind.TIMEOUT, "no reply from rtpengine"));
        when(rtp.offerFromIms(anyString(), anyString(), any(), anyString(), anyBoolean())).thenReturn("v=0 to-browser");
        Call silent = new Call("mt-2", Direction.MT, "tok", "bob", "ue2@ims.lab", "ue-ft", CallState.CONFIRMED, rtp);
        silent.dialog().invitedBy(mock(javax.sip.ServerTransaction.class), "browser-tt", "w-contact");
        silent.media().bridgeImsReoffer(OPUS_OFFER);   // a relay that does not answer cannot tell: left to the reconciler
        verify(rtp).offerFromIms("mt-2", "ue-ft", "browser-tt", OPUS_OFFER, false);
        Call held = mt();                                // a mock's query returns null: the relay has the session
        held.media().bridgeImsReoffer(OPUS_OFFER);
        verify(rtp).offerFromIms("mt-1", "ue-ft", "browser-tt", OPUS_OFFER, false);
    }

    @Test
    void aRepeatedOfferThatChangesTheSdpIsRefused() throws Exception {
        when(rtp.offerFromIms("mt-1", "ue-ft", null, OPUS_OFFER, false)).thenReturn("v=0 to-browser");
        when(rtp.offerFromIms("mt-1", "ue-ft", null, OPUS_OFFER, true)).thenReturn("v=0 other ports");
        Call c = mt();
        c.media().bridgeImsOffer(OPUS_OFFER);
        CallFailure f = assertThrows(CallFailure.class, () -> c.media().injectDtmfBeforeAnswer());
        assertEquals("media-failed", f.code());
        assertFalse(c.media().injectDtmf());
    }

    @Test
    void aRelayThatFailsTheBrowsersOfferIsMediaFailed() throws Exception {
        when(rtp.offerFromBrowser(anyString(), anyString(), any(), anyString(), any(), anyBoolean())).thenThrow(
                new org.webrtcims.gw.media.NgException(org.webrtcims.gw.media.NgException.Kind.TIMEOUT, "no reply from rtpengine"));
        Call c = new Call("mo-3", Direction.MO, "tok", "alice", "ue6@ims.lab", "browser-ft", CallState.CALLING, rtp);
        CallFailure f = assertThrows(CallFailure.class, () -> c.media().bridgeBrowserOffer(BROWSER_OFFER, null),
                "an ng offer that fails reaches the browser as a call failure, not as an NgException");
        assertEquals("media-failed", f.code(), "the browser hears media-failed when rtpengine's offer fails");
        assertEquals("rtpengine offer failed: no reply from rtpengine", f.getMessage(), "the message names the ng command");
        assertNull(c.media().imsMediaSdp(), "nothing toward IMS is kept from a failed offer");
    }

    @Test
    void moAnswersCarryTheCallsFlag() throws Exception {
        when(rtp.answerFromIms(anyString(), anyString(), anyString(), anyString(), any(), anyBoolean())).thenReturn("v=0\r\n");
        when(rtp.offerFromBrowser(anyString(), anyString(), any(), anyString(), any(), anyBoolean())).thenReturn("v=0\r\n");
        Call c = new Call("mo-1", Direction.MO, "tok", "alice", "ue6@ims.lab", "browser-ft", CallState.CALLING, rtp);
        c.media().bridgeBrowserOffer(BROWSER_OFFER, null); // a=setup:actpass: either role, the relay's configuration picks
        verify(rtp).offerFromBrowser("mo-1", "browser-ft", null, BROWSER_OFFER, null, false);
        c.dialog().followFirstFork(null, "ue-tt", true);
        c.media().bridgeImsAnswer("v=0 ims");
        verify(rtp).answerFromIms("mo-1", "browser-ft", "ue-tt", "v=0 ims", DtlsRole.EITHER, false);
        assertEquals("v=0 ims", c.media().imsRemoteSdp(), "kept for re-answers");
        c.media().choose(ImsCodec.PCMA, false);
        assertTrue(c.media().injectDtmf(), "a forced IMS codec transcodes: the call takes WebSocket dtmf");
        c.media().bridgeImsReanswer("v=0 ims2");
        verify(rtp).answerFromIms(eq("mo-1"), eq("browser-ft"), eq("ue-tt"), eq("v=0 ims2"), eq(DtlsRole.EITHER), eq(true));
    }

    @Test
    void teardownsDeleteDoesNotBlockTheCallerAndItsCountersArriveLater() throws Exception {
        org.webrtcims.gw.media.MediaStats fin = mock(org.webrtcims.gw.media.MediaStats.class);
        java.util.concurrent.CountDownLatch rtpengineSlow = new java.util.concurrent.CountDownLatch(1);
        when(rtp.delete(eq("mt-1"), eq("browser-tt"))).thenAnswer(inv -> {
            rtpengineSlow.await(5, java.util.concurrent.TimeUnit.SECONDS);
            return fin;
        });
        Call c = mt();
        long t0 = System.nanoTime();
        synchronized (c) {
            media.release(c);
        }
        assertTrue(System.nanoTime() - t0 < 200_000_000L, "release returns before rtpengine answers");
        assertFalse(c.media().released().isDone(), "the delete is still waiting for rtpengine");
        rtpengineSlow.countDown();
        media.awaitRelease(c);
        assertTrue(c.media().released().isDone(), "awaitRelease waits for the delete");
        synchronized (c) {
            assertEquals(fin, c.media().finalStats(), "the delete's counters are the call's last ones");
        }
    }

    @Test
    void anMtLegSendsReoffersWithTheTagsOfEachSideAndKeepsWhatLaterExchangesNeed() throws Exception {
        Call c = mt();
        when(rtp.offerFromIms(anyString(), anyString(), any(), anyString(), anyBoolean())).thenReturn("v=0 to-browser");
        when(rtp.answerFromBrowser(anyString(), anyString(), anyString(), anyString())).thenReturn("v=0\r\nm=audio 30000 RTP/AVP 111\r\n");
        MediaLeg leg = c.media();
        leg.bridgeImsOffer(OPUS_OFFER);
        assertEquals(OPUS_OFFER, leg.imsRemoteSdp(), "the IMS party's offer is kept for re-answers");
        assertTrue(leg.rtpengineSinceNanos() > 0, "from now on rtpengine must know the call");
        leg.bridgeBrowserAnswer(BROWSER_ANSWER);
        verify(rtp).answerFromBrowser(eq("mt-1"), eq("ue-ft"), eq("browser-tt"), anyString());
        assertEquals("v=0\r\nm=audio 30000 RTP/AVP 111\r\n", leg.imsMediaSdp(), "the answer toward IMS is the current media SDP");
        // an IMS re-offer: from the IMS party's tag toward the browser's; the browser's re-answer the other way
        leg.bridgeImsReoffer(PCMA_OFFER);
        verify(rtp).offerFromIms("mt-1", "ue-ft", "browser-tt", PCMA_OFFER, false);
        assertEquals(PCMA_OFFER, leg.imsRemoteSdp());
        leg.bridgeBrowserReanswer(BROWSER_ANSWER); // the answer of the IMS party's tag, from the browser's: as the first one
        verify(rtp, times(2)).answerFromBrowser(eq("mt-1"), eq("ue-ft"), eq("browser-tt"), anyString());
        assertEquals("browser-tt", leg.browserTag());
        assertEquals("ue-ft", leg.imsTag());
    }

    @Test
    void theLastSdpTowardImsIsTheOneWithTheHigherOriginVersion() {
        Call c = new Call("mo-2", Direction.MO, "tok", "alice", "ue1@ims.lab", "browser-ft", CallState.CONFIRMED, rtp);
        MediaLeg leg = c.media();
        assertNull(leg.lastSdpToIms(), "nothing sent yet");
        leg.sentToIms("v=0\r\no=- 1 3 IN IP4 127.0.0.1\r\na=curr:qos local sendrecv\r\n");
        assertTrue(leg.lastSdpToIms().contains("a=curr:qos"), "only the precondition SDP so far");
        leg.reofferTaken("v=0\r\no=- 1 4 IN IP4 127.0.0.1\r\na=sendonly\r\n");
        assertTrue(leg.lastSdpToIms().contains("a=sendonly"), "the re-offer's version 4 is newer than the QoS SDP's 3");
        leg.sentToIms("v=0\r\no=- 1 5 IN IP4 127.0.0.1\r\na=curr:qos local sendrecv\r\n");
        assertTrue(leg.lastSdpToIms().contains("a=curr:qos"), "version 5 wins again");
    }

    @Test
    void aQueryRtpengineCannotAnswerIsNoCountersNotAFailure() throws Exception {
        when(rtp.query("mt-1", "browser-tt")).thenThrow(new org.webrtcims.gw.media.NgException(
                org.webrtcims.gw.media.NgException.Kind.TIMEOUT, "no answer"));
        assertNull(mt().media().query());
    }
}

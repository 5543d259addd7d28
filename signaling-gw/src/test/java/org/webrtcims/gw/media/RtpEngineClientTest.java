package org.webrtcims.gw.media;

import org.webrtcims.gw.sdp.SdpCodec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RtpEngineClientTest {
    private static final String IN_SDP = "v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n";
    private static final String OUT_SDP = "v=0\r\nm=audio 30000 RTP/AVP 111\r\na=rtpmap:111 opus/48000/2\r\n";

    private FakeNgPeer peer;
    private NgClient ng;
    private RtpEngineClient client;

    interface NgCall<T> {
        T call() throws NgException;
    }

    @BeforeEach
    void setUp() throws Exception {
        peer = new FakeNgPeer();
        ng = new NgClient(peer.address(), Duration.ofSeconds(2), 1);
        client = Clients.over(ng);
    }

    @AfterEach
    void tearDown() {
        ng.close();
        peer.close();
    }

    /** Runs one client call, answers its single request with {@code reply}, returns the request sent. */
    private <T> Map<String, Object> exchange(NgCall<T> call, Map<String, Object> reply, List<T> result)
            throws Exception {
        CompletableFuture<T> f = CompletableFuture.supplyAsync(() -> {
            try {
                return call.call();
            } catch (NgException e) {
                throw new CompletionException(e);
            }
        });
        FakeNgPeer.Request req = peer.take();
        peer.reply(req, reply);
        result.add(f.get(5, TimeUnit.SECONDS));
        return req.dict();
    }

    /** One SDP exchange answered with OUT_SDP: checks the client returns it, gives the request sent. */
    private Map<String, Object> sdpExchange(NgCall<String> call) throws Exception {
        List<String> out = new ArrayList<>();
        Map<String, Object> sent = exchange(call, Map.of("result", "ok", "sdp", OUT_SDP), out);
        assertEquals(List.of(OUT_SDP), out);
        return sent;
    }

    @Test
    void mtOfferTranscodesOnlyWithoutOpusFromIms() {
        assertTrue(RtpEngineClient.mtOfferTranscodes(String.join("\r\n", "v=0", "m=audio 6100 RTP/AVP 8 101",
                "a=rtpmap:8 PCMA/8000", "a=rtpmap:101 telephone-event/8000", "")));
        assertFalse(RtpEngineClient.mtOfferTranscodes(String.join("\r\n", "v=0", "m=audio 6100 RTP/AVP 111 110",
                "a=rtpmap:111 opus/48000/2", "a=rtpmap:110 telephone-event/48000", "")));
    }

    private static final String CHROME_AUDIO = String.join("\r\n", "v=0",
            "m=audio 9 UDP/TLS/RTP/SAVPF 111 9 0 8 110 126", "a=rtpmap:111 opus/48000/2",
            "a=rtpmap:9 G722/8000", "a=rtpmap:0 PCMU/8000", "a=rtpmap:8 PCMA/8000",
            "a=rtpmap:110 telephone-event/48000", "a=rtpmap:126 telephone-event/8000", "");

    @Test
    void moOfferWithImsCodecForcesItAndKeepsTelephoneEvent() throws Exception {
        Map<String, Object> sent = exchange(() -> client.offerFromBrowser("cid", "ftag", null, CHROME_AUDIO, ImsCodec.PCMA, false),
                Map.of("result", "ok", "sdp", imsSdp("PCMA/8000")), new ArrayList<>());
        assertEquals(Map.of(
                "command", "offer", "call-id", "cid", "from-tag", "ftag", "sdp", CHROME_AUDIO,
                "transport-protocol", "RTP/AVP", "ICE", "remove", "rtcp-mux", List.of("demux"),
                "flags", List.of("trust-address", "strip-extmap"),
                "replace", List.of("origin", "session-connection"),
                "codec", Map.of("strip", List.of("PCMA"), "mask", List.of("all"),
                        "transcode", List.of("PCMA/8000/1/64000", "telephone-event"))), sent);
    }

    @Test
    void moOfferWithImsCodecWithoutTelephoneEventInTheOffer() throws Exception {
        Map<String, Object> sent = exchange(() -> client.offerFromBrowser("cid", "ftag", null, IN_SDP, ImsCodec.G722, false),
                Map.of("result", "ok", "sdp", imsSdp("G722/8000")), new ArrayList<>());
        assertEquals(Map.of("strip", List.of("G722"), "mask", List.of("all"),
                "transcode", List.of("G722/8000/1/64000")), sent.get("codec"));
    }

    @Test
    void moOfferAmrWbAndPcmuSpecs() throws Exception {
        Map<String, Object> wb = exchange(() -> client.offerFromBrowser("cid", "ftag", null, CHROME_AUDIO, ImsCodec.AMR_WB, false),
                Map.of("result", "ok", "sdp", imsSdp("AMR-WB/16000")), new ArrayList<>());
        assertEquals(Map.of("strip", List.of("AMR-WB"), "mask", List.of("all"),
                "transcode", List.of("AMR-WB/16000/1/12650", "telephone-event")), wb.get("codec"));
        Map<String, Object> mu = exchange(() -> client.offerFromBrowser("cid2", "ftag", null, CHROME_AUDIO, ImsCodec.PCMU, false),
                Map.of("result", "ok", "sdp", imsSdp("PCMU/8000")), new ArrayList<>());
        assertEquals(List.of("PCMU/8000/1/64000", "telephone-event"),
                ((Map<?, ?>) mu.get("codec")).get("transcode"));
    }

    private static String imsSdp(String encoding) {
        return "v=0\r\nm=audio 30000 RTP/AVP 96\r\na=rtpmap:96 " + encoding + "\r\n";
    }

    /** rtpengine without an AMR-WB encoder leaves the codec out: the call is deleted and the offer fails. */
    @Test
    void moOfferFailsWhenRtpengineCannotProduceTheCodec() throws Exception {
        CompletableFuture<String> f = CompletableFuture.supplyAsync(() -> {
            try {
                return client.offerFromBrowser("cid", "ftag", null, CHROME_AUDIO, ImsCodec.AMR_WB, false);
            } catch (NgException e) {
                throw new CompletionException(e);
            }
        });
        peer.reply(peer.take(), Map.of("result", "ok", "sdp", OUT_SDP));
        FakeNgPeer.Request del = peer.take();
        assertEquals(Map.of("command", "delete", "call-id", "cid", "delete-delay", 0L), del.dict());
        peer.reply(del, Map.of("result", "ok"));
        NgException e = (NgException) assertThrows(CompletionException.class, f::join).getCause();
        assertEquals("rtpengine cannot transcode to AMR-WB (see docs/media.md)", e.getMessage());
    }

    @Test
    void moOfferWithoutImsCodecHasNoCodecDict() throws Exception {
        Map<String, Object> sent = exchange(() -> client.offerFromBrowser("cid", "ftag", null, CHROME_AUDIO, null, false),
                Map.of("result", "ok", "sdp", OUT_SDP), new ArrayList<>());
        assertFalse(sent.containsKey("codec"));
    }

    private static final String FIREFOX_AUDIO = String.join("\r\n", "v=0",
            "m=audio 9 UDP/TLS/RTP/SAVPF 109 9 0 8 101", "a=rtpmap:109 opus/48000/2",
            "a=rtpmap:9 G722/8000/1", "a=rtpmap:0 PCMU/8000", "a=rtpmap:8 PCMA/8000",
            "a=rtpmap:101 telephone-event/8000/1", "");

    @Test
    void moInjectOfferFromFirefoxAddsTelephoneEventAtOpusClock() throws Exception {
        Map<String, Object> sent = exchange(() -> client.offerFromBrowser("cid", "ftag", null, FIREFOX_AUDIO, null, true),
                Map.of("result", "ok", "sdp", OUT_SDP), new ArrayList<>());
        assertEquals(Map.of("transcode", List.of("telephone-event/48000")), sent.get("codec"));
    }

    @Test
    void moOfferWithoutInjectOrWithOpusClockEventAddsNoTelephoneEvent() throws Exception {
        Map<String, Object> relayed = exchange(() -> client.offerFromBrowser("cid", "ftag", null, FIREFOX_AUDIO, null, false),
                Map.of("result", "ok", "sdp", OUT_SDP), new ArrayList<>());
        assertFalse(relayed.containsKey("codec"), "a relayed call keeps the browser's telephone-event/8000 as it is");
        Map<String, Object> chrome = exchange(() -> client.offerFromBrowser("cid2", "ftag", null, CHROME_AUDIO, null, true),
                Map.of("result", "ok", "sdp", OUT_SDP), new ArrayList<>());
        assertFalse(chrome.containsKey("codec"), "Chrome offers telephone-event/48000 itself");
        assertEquals(null, CodecPolicy.codecClockTelephoneEventMissing(String.join("\r\n", "v=0",
                "m=audio 9 RTP/AVP 109", "a=rtpmap:109 opus/48000/2", "")), "no telephone-event offered: none added");
    }

    @Test
    void mtOfferWithoutOpusOffersTranscodedOpusFirst() throws Exception {
        String ueOffer = String.join("\r\n", "v=0", "m=audio 6100 RTP/AVP 8 0 101",
                "a=rtpmap:101 telephone-event/8000", "");
        Map<String, Object> sent = exchange(() -> client.offerFromIms("cid", "imstag", null, ueOffer, false),
                Map.of("result", "ok", "sdp", OUT_SDP), new ArrayList<>());
        assertEquals(Map.of("mask", List.of("all"),
                "transcode", List.of("opus", "PCMA", "PCMU", "telephone-event")), sent.get("codec"));
    }

    @Test
    void mtOfferWithOpusIsPassThrough() throws Exception {
        Map<String, Object> sent = exchange(() -> client.offerFromIms("cid", "imstag", null, OUT_SDP, false),
                Map.of("result", "ok", "sdp", OUT_SDP), new ArrayList<>());
        assertFalse(sent.containsKey("codec"));
    }

    @Test
    void playDtmfInjectsOneDigitFromTheBrowserTag() throws Exception {
        List<Object> out = new ArrayList<>();
        Map<String, Object> sent = exchange(() -> {
            client.playDtmf("cid", "browser-tag", '#', 160);
            return null;
        }, Map.of("result", "ok"), out);
        assertEquals(Map.of("command", "play DTMF", "call-id", "cid", "from-tag", "browser-tag", "code", "#",
                "duration", 160L, "volume", 8L, "pause", 100L), sent);
    }

    @Test
    void playDtmfRefusedByRtpengineIsAnNgException() throws Exception {
        CompletableFuture<Void> f = CompletableFuture.runAsync(() -> {
            try {
                client.playDtmf("cid", "browser-tag", '1', 100);
            } catch (NgException e) {
                throw new CompletionException(e);
            }
        });
        FakeNgPeer.Request req = peer.take();
        peer.reply(req, Map.of("result", "error", "error-reason", "No SSRC context present for DTMF injection"));
        CompletionException e = assertThrows(CompletionException.class, () -> f.join());
        NgException ng = (NgException) e.getCause();
        assertEquals(NgException.Kind.ERROR_RESULT, ng.kind());
        assertTrue(ng.getMessage().contains("No SSRC context"), ng.getMessage());
    }

    @Test
    void imsCodecParsesApiNamesOnly() {
        assertEquals(ImsCodec.AMR_WB, ImsCodec.parse("amr-wb"));
        assertEquals(ImsCodec.PCMA, ImsCodec.parse("PCMA"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ImsCodec.parse("opus"));
        assertEquals("imsCodec 'opus' is not one of PCMA, PCMU, G722, AMR-WB, AMR", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ImsCodec.parse(""));
    }

    @Test
    void errorReplyPropagatesAsNgException() throws Exception {
        CompletableFuture<String> f = CompletableFuture.supplyAsync(() -> {
            try {
                return client.offerFromBrowser("cid", "ftag", null, "garbage", null, false);
            } catch (NgException e) {
                throw new CompletionException(e);
            }
        });
        peer.reply(peer.take(), Map.of("result", "error", "error-reason", "Failed to parse SDP"));
        NgException e = (NgException) assertThrows(CompletionException.class, f::join).getCause();
        assertEquals(NgException.Kind.ERROR_RESULT, e.kind());
        assertEquals("Failed to parse SDP", e.getMessage());
    }

    /**
     * rtpengine-10.5-query-mo.bencode is a real rtpengine 10.5.3.5 query reply (cookie stripped), recorded
     * with a real WebRTC endpoint (aiortc) as browser, tag "browser-ft", and a UDP echo as IMS UE, tag
     * "ims-tt". Browser tag: one rtcp-mux stream (flags RTP+RTCP) 207 packets / 3478 bytes, plus an empty
     * "fallback RTCP" stream. IMS tag: RTP stream 198 / 2970, RTCP-only stream 8 / 64 (excluded).
     * Both medias report "codec": "opus/48000/2".
     */
    @Test
    void queryExtractsPerDirectionCountersFromRecordedReply() throws Exception {
        byte[] recorded;
        try (InputStream in = getClass().getResourceAsStream("/media/rtpengine-10.5-query-mo.bencode")) {
            recorded = in.readAllBytes();
        }
        CompletableFuture<MediaStats> f = CompletableFuture.supplyAsync(() -> {
            try {
                return client.query("rec-mo", "browser-ft");
            } catch (NgException e) {
                throw new CompletionException(e);
            }
        });
        FakeNgPeer.Request req = peer.take();
        assertEquals(Map.of("command", "query", "call-id", "rec-mo"), req.dict());
        peer.replyRaw(req, (req.cookie() + " ").getBytes(StandardCharsets.US_ASCII), recorded);
        assertEquals(new MediaStats("opus/48000", "opus/48000", 207, 198, 3478, 2970), f.get(5, TimeUnit.SECONDS));
    }

    @Test
    void queryFallsBackToNegotiatedSdpCodecsBeforeRtpIsSeen() throws Exception {
        String browserAnswer = "v=0\r\nm=audio 30016 UDP/TLS/RTP/SAVPF 8 101\r\na=rtpmap:101 telephone-event/8000\r\n";
        String imsAnswer = "v=0\r\nm=audio 30008 RTP/AVP 101 8\r\na=rtpmap:8 PCMA/8000\r\n"
                + "a=rtpmap:101 telephone-event/8000\r\n";
        List<String> out = new ArrayList<>();
        exchange(() -> client.answerFromBrowser("mt1", "imstag", "brtag", browserAnswer),
                Map.of("result", "ok", "sdp", imsAnswer), out);
        Map<String, Object> reply = Map.of("result", "ok", "tags", Map.of(
                "brtag", Map.of("medias", List.of(Map.of("type", "audio", "streams", List.of()))),
                "imstag", Map.of("medias", List.of(Map.of("type", "audio", "streams", List.of(
                        Map.of("flags", List.of("RTP"), "stats", Map.of("packets", 5L, "bytes", 800L)),
                        Map.of("flags", List.of("RTCP"), "stats", Map.of("packets", 2L, "bytes", 90L))))))));
        List<MediaStats> stats = new ArrayList<>();
        exchange(() -> client.query("mt1", "brtag"), reply, stats);
        assertEquals(new MediaStats("PCMA/8000", "PCMA/8000", 0, 5, 0, 800), stats.get(0));
    }

    @Test
    void deleteNamesTheBrowserTagAndReturnsFinalStats() throws Exception {
        Map<String, Object> reply = Map.of("result", "ok", "tags", Map.of(
                "brtag", Map.of("medias", List.of(Map.of("type", "audio", "codec", "PCMA/8000", "streams", List.of(
                        Map.of("flags", List.of("RTP", "RTCP"), "stats", Map.of("packets", 50L, "bytes", 8600L))))))));
        List<MediaStats> out = new ArrayList<>();
        Map<String, Object> sent = exchange(() -> client.delete("cid", "brtag"), reply, out);
        assertEquals(Map.of("command", "delete", "call-id", "cid", "from-tag", "brtag", "delete-delay", 0L), sent);
        assertEquals(new MediaStats("PCMA/8000", null, 50, 0, 8600, 0), out.get(0));
        assertNull(peer.take(300), "no second delete once the tagged one succeeded");
    }

    @Test
    void deleteFallsBackToWholeCallWhenTagUnknown() throws Exception {
        CompletableFuture<MediaStats> f = CompletableFuture.supplyAsync(() -> {
            try {
                return client.delete("cid", "never-answered");
            } catch (NgException e) {
                throw new CompletionException(e);
            }
        });
        FakeNgPeer.Request tagged = peer.take();
        assertEquals("never-answered", tagged.dict().get("from-tag"));
        peer.reply(tagged, Map.of("result", "ok", "warning", "Call-ID not found or tags didn't match"));
        FakeNgPeer.Request whole = peer.take();
        assertEquals(Map.of("command", "delete", "call-id", "cid", "delete-delay", 0L), whole.dict());
        peer.reply(whole, Map.of("result", "ok"));
        assertNull(f.get(5, TimeUnit.SECONDS));
    }

    @Test
    void listReturnsCallIds() throws Exception {
        List<List<String>> out = new ArrayList<>();
        Map<String, Object> sent = exchange(() -> client.list(),
                Map.of("result", "ok", "calls", List.of("a@x", "b@y")), out);
        assertEquals(Map.of("command", "list", "limit", 1000L), sent);
        assertEquals(List.of("a@x", "b@y"), out.get(0));
    }

    @Test
    void pingIsTrueOnPongAndFalseOnSilence() throws Exception {
        List<Boolean> out = new ArrayList<>();
        assertEquals(Map.of("command", "ping"), exchange(() -> client.relays().ping(), Map.of("result", "pong"), out));
        assertTrue(out.get(0));
        try (NgClient quick = new NgClient(peer.address(), Duration.ofMillis(100), 1)) {
            assertFalse(Clients.over(quick).relays().ping());
        }
    }

    @Test
    void theSessionPrefixIsOnEveryCallIdSentAndListShowsOnlyThisGatewaysSessions() throws Exception {
        RtpEngineClient gw = Clients.over(ng, RtpEngineLegs.DEFAULT, "gw5070-");
        List<String> sdp = new ArrayList<>();
        Map<String, Object> offer = exchange(() -> gw.offerFromBrowser("c1", "ft", null, IN_SDP, null, false),
                Map.of("result", "ok", "sdp", OUT_SDP), sdp);
        assertEquals("gw5070-c1", offer.get("call-id"));
        List<MediaStats> none = new ArrayList<>();
        assertEquals("gw5070-c1", exchange(() -> gw.delete("c1", null), Map.of("result", "ok"), none).get("call-id"));
        List<List<String>> out = new ArrayList<>();
        exchange(() -> gw.list(), Map.of("result", "ok", "calls", List.of("gw5070-a", "loadgen-7", "gw5071-b", "gw5070-b")), out);
        assertEquals(List.of("a", "b"), out.get(0));
        assertEquals("a", gw.callIdOf("gw5070-a"));
        assertNull(gw.callIdOf("gw5071-a"));
        assertThrows(IllegalArgumentException.class, () -> Clients.over(ng, RtpEngineLegs.DEFAULT, "a b"));
    }
}

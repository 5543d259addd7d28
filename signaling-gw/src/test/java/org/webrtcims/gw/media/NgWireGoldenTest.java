package org.webrtcims.gw.media;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The ng datagrams of the gateway's main flows, byte for byte, against a recording (src/test/resources/media/
 * ng-wire-golden.txt) made with the RtpEngineClient of before the split into NgCommands / NgFlags /
 * RtpEngineRelays (issue #24): offer from the browser, answer from IMS, the MT flows, re-offers both ways,
 * transcoding (and its failure), DTMF injection and `play DTMF`, query, delete, list, statistics, ping; with
 * the default legs and a session prefix, and with named interfaces and ICE-lite. Each line is one request as it
 * left the NgClient's socket (cookie cut off), or a result the client returned for a reply.
 */
class NgWireGoldenTest {
    private static final String GOLDEN = "/media/ng-wire-golden.txt";

    private static final String CHROME = String.join("\r\n", "v=0", "o=- 4611 2 IN IP4 127.0.0.1", "s=-", "t=0 0",
            "m=audio 9 UDP/TLS/RTP/SAVPF 111 9 0 8 110 126", "c=IN IP4 0.0.0.0", "a=rtpmap:111 opus/48000/2",
            "a=rtpmap:9 G722/8000", "a=rtpmap:0 PCMU/8000", "a=rtpmap:8 PCMA/8000",
            "a=rtpmap:110 telephone-event/48000", "a=rtpmap:126 telephone-event/8000", "a=setup:actpass",
            "a=candidate:1 1 udp 2122260223 198.18.0.2 50000 typ host", "a=rtcp-mux", "");
    private static final String CHROME_ANSWER = CHROME.replace("111 9 0 8 110 126", "111 110")
            .replace("a=setup:actpass", "a=setup:active");
    private static final String FIREFOX_MDNS = String.join("\r\n", "v=0", "o=mozilla...THIS_IS_SDPARTA 1 0 IN IP4 0.0.0.0",
            "m=audio 9 UDP/TLS/RTP/SAVPF 109 9 0 8 101", "c=IN IP4 0.0.0.0", "a=rtpmap:109 opus/48000/2",
            "a=rtpmap:9 G722/8000/1", "a=rtpmap:0 PCMU/8000", "a=rtpmap:8 PCMA/8000", "a=rtpmap:101 telephone-event/8000/1",
            "a=candidate:0 1 UDP 2122252543 afdc9c45-cd7c-492d-8f94-b8096b2155bd.local 48028 typ host",
            "a=rtcp:40147 IN IP4 afdc9c45-cd7c-492d-8f94-b8096b2155bd.local", "a=rtcp-mux", "");
    private static final String IMS_OPUS = String.join("\r\n", "v=0", "o=ue 1 1 IN IP4 127.0.0.1", "s=-",
            "c=IN IP4 127.0.0.1", "t=0 0", "m=audio 6100 RTP/AVP 111 110", "a=rtpmap:111 opus/48000/2",
            "a=rtpmap:110 telephone-event/48000", "");
    private static final String IMS_PCMA = String.join("\r\n", "v=0", "o=ue 1 1 IN IP4 127.0.0.1", "s=-",
            "c=IN IP4 127.0.0.1", "t=0 0", "m=audio 6100 RTP/AVP 8 0 101", "a=rtpmap:8 PCMA/8000",
            "a=rtpmap:101 telephone-event/8000", "");
    private static final String RELAY_OPUS = "v=0\r\nm=audio 30000 RTP/AVP 111\r\na=rtpmap:111 opus/48000/2\r\n";
    private static final String RELAY_PCMA = "v=0\r\nm=audio 30002 RTP/AVP 8 101\r\na=rtpmap:8 PCMA/8000\r\n"
            + "a=rtpmap:101 telephone-event/8000\r\n";

    private FakeNgPeer peer;
    private Thread responder;
    private final List<String> lines = new ArrayList<>();

    @BeforeEach
    void setUp() throws IOException {
        peer = new FakeNgPeer();
        responder = new Thread(this::answerAll, "golden-ng-responder");
        responder.setDaemon(true);
        responder.start();
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        peer.close();
        responder.interrupt();
        responder.join(2000);
    }

    /** rtpengine's part: each request recorded as sent, then answered by its command (and call). */
    private void answerAll() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                FakeNgPeer.Request req = peer.take(60_000);
                if (req == null) continue;
                byte[] raw = req.raw();
                int space = new String(raw, StandardCharsets.ISO_8859_1).indexOf(' ');
                String dict = new String(raw, space + 1, raw.length - space - 1, StandardCharsets.ISO_8859_1);
                synchronized (lines) {
                    lines.add("> " + escape(dict));
                }
                peer.reply(req, replyTo(req.dict()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // the peer closed at the end of the test
        }
    }

    private static Map<String, Object> replyTo(Map<String, Object> cmd) {
        String callId = String.valueOf(cmd.get("call-id"));
        return switch (String.valueOf(cmd.get("command"))) {
            case "offer" -> Map.of("result", "ok", "sdp", callId.endsWith("mo2") ? RELAY_PCMA : RELAY_OPUS);
            case "answer" -> Map.of("result", "ok", "sdp", callId.endsWith("mt2") ? RELAY_PCMA : RELAY_OPUS);
            case "query" -> Map.of("result", "ok", "tags", Map.of(
                    "br-ft", Map.of("medias", List.of(Map.of("type", "audio", "codec", "opus/48000/2", "streams", List.of(
                            Map.of("flags", List.of("RTP", "RTCP"), "stats", Map.of("packets", 100L, "bytes", 9000L)))))),
                    "ims-tt", Map.of("medias", List.of(Map.of("type", "audio", "streams", List.of(
                            Map.of("flags", List.of("RTP"), "stats", Map.of("packets", 90L, "bytes", 8000L)),
                            Map.of("flags", List.of("RTCP"), "stats", Map.of("packets", 3L, "bytes", 200L)))))),
                    "br-tt2", Map.of("medias", List.of(Map.of("type", "audio", "streams", List.of())))));
            case "delete" -> cmd.containsKey("from-tag") && "br-never".equals(cmd.get("from-tag"))
                    ? Map.of("result", "ok", "warning", "Call-ID not found or tags didn't match")
                    : cmd.containsKey("from-tag")
                    ? Map.of("result", "ok", "tags", Map.of("br-ft", Map.of("medias", List.of(Map.of("type", "audio",
                            "codec", "opus/48000/2", "streams", List.of(Map.of("flags", List.of("RTP", "RTCP"),
                                    "stats", Map.of("packets", 120L, "bytes", 9900L))))))))
                    : Map.of("result", "ok");
            case "list" -> Map.of("result", "ok", "calls", List.of("gw5070-mo1", "other-x", "gw5070-mt2"));
            case "statistics" -> Map.of("result", "ok", "statistics", Map.of("totalstatistics", Map.of("uptime", "42")));
            case "ping" -> Map.of("result", "pong");
            case "play DTMF" -> Map.of("result", "ok");
            default -> Map.of("result", "error", "error-reason", "unknown command");
        };
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\r", "\\r").replace("\n", "\\n");
    }

    private void note(String label, Object result) {
        synchronized (lines) {
            lines.add("= " + label + " -> " + escape(String.valueOf(result)));
        }
    }

    @Test
    void theMainFlowsSendTheRecordedDatagrams() throws Exception {
        try (NgClient ng = new NgClient(peer.address(), Duration.ofSeconds(2), 1)) {
            RtpEngineClient plain = Clients.over(ng, RtpEngineLegs.DEFAULT, "gw5070-");
            flows("default legs, prefix gw5070-", plain);
            RtpEngineClient named = Clients.over(ng, new RtpEngineLegs("pub", "ims", true), "");
            flows("named legs, ICE-lite", named);
        }
        List<String> golden = golden();
        List<String> now;
        synchronized (lines) {
            now = List.copyOf(lines);
        }
        for (int i = 0; i < Math.min(golden.size(), now.size()); i++) {
            assertEquals(golden.get(i), now.get(i), "line " + (i + 1) + " of " + GOLDEN
                    + " (an ng request or a result) differs: the ng commands must stay byte for byte as recorded");
        }
        assertEquals(golden.size(), now.size(), "number of ng requests and results against " + GOLDEN);
    }

    private void flows(String setup, RtpEngineClient rtp) throws Exception {
        note("setup", setup);
        // MO: offer from the browser, answer from IMS, re-offers both ways
        note("mo offer", rtp.offerFromBrowser("mo1", "br-ft", null, CHROME, null, false));
        note("mo answer", rtp.answerFromIms("mo1", "br-ft", "ims-tt", IMS_OPUS, "active", false));
        note("mo browser re-offer", rtp.offerFromBrowser("mo1", "br-ft", "ims-tt", CHROME, null, false));
        note("mo browser re-answer", rtp.answerFromIms("mo1", "br-ft", "ims-tt", IMS_OPUS, "passive", false));
        note("mo ims re-offer", rtp.offerFromIms("mo1", "ims-tt", "br-ft", IMS_OPUS, false));
        note("mo ims re-answer", rtp.answerFromBrowser("mo1", "ims-tt", "br-ft", CHROME_ANSWER));
        note("mo query", rtp.query("mo1", "br-ft"));
        // MO transcoding to PCMA with DTMF injection, a re-offer, play DTMF
        note("mo pcma offer", rtp.offerFromBrowser("mo2", "br-ft2", null, CHROME, ImsCodec.PCMA, true));
        note("mo pcma answer", rtp.answerFromIms("mo2", "br-ft2", "ims-tt2", IMS_PCMA, "active", true));
        note("mo pcma re-offer", rtp.offerFromBrowser("mo2", "br-ft2", "ims-tt2", CHROME, ImsCodec.PCMA, true));
        rtp.playDtmf("mo2", "br-ft2", '5', 160);
        rtp.playDtmf("mo2", "br-ft2", '#', 100);
        note("mo pcma dtmf", "sent");
        // MO from Firefox with mDNS candidates only, DTMF injection (telephone-event at Opus's clock added)
        note("mo firefox offer", rtp.offerFromBrowser("mo3", "ff-ft", null, FIREFOX_MDNS, null, true));
        // MO to a codec rtpengine cannot produce: the offer, then the call's delete, then the failure
        NgException e = assertThrows(NgException.class,
                () -> rtp.offerFromBrowser("mo4", "br-ft4", null, CHROME, ImsCodec.AMR_WB, false));
        note("mo amr-wb offer", e.kind() + " " + e.getMessage());
        // MT: an IMS offer without Opus (transcoded, so it injects), one with Opus relayed, then asked to inject
        note("mt pcma offer", rtp.offerFromIms("mt1", "ue-ft", null, IMS_PCMA, true));
        note("mt opus offer", rtp.offerFromIms("mt2", "ue-ft2", null, IMS_OPUS, false));
        note("mt opus offer again with inject", rtp.offerFromIms("mt2", "ue-ft2", null, IMS_OPUS, true));
        note("mt answer", rtp.answerFromBrowser("mt2", "ue-ft2", "br-tt2", CHROME_ANSWER));
        note("mt ims re-offer", rtp.offerFromIms("mt2", "ue-ft2", "br-tt2", IMS_OPUS, true));
        note("mt browser re-offer", rtp.offerFromBrowser("mt2", "br-tt2", "ue-ft2", FIREFOX_MDNS, null, true));
        note("mt browser re-answer", rtp.answerFromIms("mt2", "br-tt2", "ue-ft2", IMS_OPUS, "passive", true));
        note("mt query", rtp.query("mt2", "br-tt2"));
        // teardown: a tagged delete with stats, one whose tag rtpengine never saw, an orphan's
        note("mo delete", rtp.delete("mo1", "br-ft"));
        note("mt delete unanswered", rtp.delete("mt1", "br-never"));
        note("orphan delete", rtp.delete("old-1", null));
        // the relays: list, statistics, ping
        note("list", rtp.list());
        rtp.relays().noteRestarts();
        note("statistics", "asked");
        note("ping", rtp.relays().ping());
    }

    private static List<String> golden() throws IOException {
        try (InputStream in = NgWireGoldenTest.class.getResourceAsStream(GOLDEN)) {
            assertNotNull(in, GOLDEN + " is missing from the test resources");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
    }
}

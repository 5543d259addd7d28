package org.webrtcims.gw.media;

import org.webrtcims.gw.sdp.SdpCodec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Against a REAL rtpengine: the class starts its own (see {@link LocalRtpengine}: a free loopback ng port,
 * a random media port range, stopped by PID afterwards) and FAILS when the binary is missing.
 * {@code -Drtpengine.ng=host:port} uses a running one instead; {@code -Drtpengine.skip=true} skips the class.
 */
@Tag("rtpengine")
class RtpEngineRealTest {
    static final String CHROME_OFFER = String.join("\r\n",
            "v=0",
            "o=- 4611731400430051336 2 IN IP4 127.0.0.1",
            "s=-",
            "t=0 0",
            "a=group:BUNDLE 0",
            "a=extmap-allow-mixed",
            "a=msid-semantic: WMS 3f0c2b9e-5d1a-4c43-9b6e-1c2a0d9e7f11",
            "m=audio 50000 UDP/TLS/RTP/SAVPF 111 8 126",
            "c=IN IP4 127.0.0.1",
            "a=rtcp:9 IN IP4 0.0.0.0",
            "a=candidate:1467250027 1 udp 2122260223 127.0.0.1 50000 typ host generation 0 network-id 1",
            "a=ice-ufrag:Hx7Q",
            "a=ice-pwd:4ZcxkB0kJ9pGq8yV2wXyZaBc",
            "a=ice-options:trickle",
            "a=fingerprint:sha-256 7B:8B:F0:65:5F:78:E2:51:3B:AC:6F:F3:3F:46:1B:35:DC:B8:5F:64:1A:24:C2:43:F0:A1:58:D0:A1:2C:19:08",
            "a=setup:actpass",
            "a=mid:0",
            "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level",
            "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
            "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
            "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
            "a=sendrecv",
            "a=msid:3f0c2b9e-5d1a-4c43-9b6e-1c2a0d9e7f11 8a1d6c3e-2b4f-4e5a-9c7d-0f1e2d3c4b5a",
            "a=rtcp-mux",
            "a=rtpmap:111 opus/48000/2",
            "a=rtcp-fb:111 transport-cc",
            "a=fmtp:111 minptime=10;useinbandfec=1",
            "a=rtpmap:8 PCMA/8000",
            "a=rtpmap:126 telephone-event/8000",
            "a=ssrc:3735928559 cname:k3Jd9fQ2xY7pLm0A",
            "a=ssrc:3735928559 msid:3f0c2b9e-5d1a-4c43-9b6e-1c2a0d9e7f11 8a1d6c3e-2b4f-4e5a-9c7d-0f1e2d3c4b5a",
            "");
    static final String UE1_ANSWER = String.join("\r\n",
            "v=0", "o=ue1 53655765 2353687637 IN IP4 127.0.0.1", "s=-", "c=IN IP4 127.0.0.1", "t=0 0",
            "m=audio 6000 RTP/AVP 111", "a=rtpmap:111 opus/48000/2", "a=sendrecv", "");
    static final String UE2_OFFER = String.join("\r\n",
            "v=0", "o=ue2 1 1 IN IP4 127.0.0.1", "s=-", "c=IN IP4 127.0.0.1", "t=0 0",
            "m=audio 6100 RTP/AVP 8 0 101", "a=rtpmap:8 PCMA/8000", "a=rtpmap:0 PCMU/8000",
            "a=rtpmap:101 telephone-event/8000", "a=fmtp:101 0-15", "a=ptime:20", "a=sendrecv", "");
    static final String CHROME_ANSWER = String.join("\r\n",
            "v=0",
            "o=- 1234567890123456789 2 IN IP4 127.0.0.1",
            "s=-",
            "t=0 0",
            "a=group:BUNDLE 1",
            "a=extmap-allow-mixed",
            "a=msid-semantic: WMS 11111111-2222-3333-4444-555555555555",
            "m=audio 50002 UDP/TLS/RTP/SAVPF 8 101",
            "c=IN IP4 127.0.0.1",
            "a=rtcp:9 IN IP4 0.0.0.0",
            "a=candidate:2999745851 1 udp 2122260223 127.0.0.1 50002 typ host generation 0 network-id 1",
            "a=ice-ufrag:aB3d",
            "a=ice-pwd:Qw8e7r6t5y4u3i2o1p0aSdFg",
            "a=ice-options:trickle",
            "a=fingerprint:sha-256 11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00",
            "a=setup:active",
            "a=mid:1",
            "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level",
            "a=sendrecv",
            "a=msid:11111111-2222-3333-4444-555555555555 66666666-7777-8888-9999-000000000000",
            "a=rtcp-mux",
            "a=rtpmap:8 PCMA/8000",
            "a=rtpmap:101 telephone-event/8000",
            "a=fmtp:101 0-15",
            "a=ssrc:287454020 cname:zZ9yY8xX7wW6vV5u",
            "");

    @RegisterExtension
    static final LocalRtpengine.PerClass RTPENGINE = new LocalRtpengine.PerClass();
    private NgClient ng;
    private RtpEngineClient rtp;


    @BeforeEach
    void connect() {
        ng = new NgClient(RTPENGINE.ng(), Duration.ofMillis(500), 3);
        rtp = Clients.over(ng);
    }

    @AfterEach
    void close() {
        ng.close();
    }

    @Test
    void moAndMtThroughRealRtpengine() throws Exception {
        assertTrue(rtp.relays().ping(), "ping -> pong");

        String imsOffer = rtp.offerFromBrowser("mo-1@gw", "mo-ft", null, CHROME_OFFER, null, false);
        print("MO offer toward IMS", imsOffer);
        assertImsLeg(imsOffer);
        assertTrue(imsOffer.contains("a=rtcp:"), "separate RTCP port toward IMS");
        DatagramSocket ue = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        String browserAnswer = rtp.answerFromIms("mo-1@gw", "mo-ft", "mo-tt", UE1_ANSWER.replace("m=audio 6000 ", "m=audio " + ue.getLocalPort() + " "), "active", false);
        print("MO answer toward browser", browserAnswer);
        assertBrowserLeg(browserAnswer);
        assertTrue(browserAnswer.contains("a=setup:active"));

        String browserOffer = rtp.offerFromIms("mt-1@ims", "mt-ft", null, UE2_OFFER, false);
        print("MT offer toward browser", browserOffer);
        assertBrowserLeg(browserOffer);
        assertTrue(browserOffer.contains("a=setup:actpass"));
        assertTrue(browserOffer.contains("a=mid:"), "generate-mid");
        assertFalse(browserOffer.contains("a=crypto"), "SDES off");
        String imsAnswer = rtp.answerFromBrowser("mt-1@ims", "mt-ft", "mt-tt", CHROME_ANSWER);
        print("MT answer toward IMS", imsAnswer);
        assertImsLeg(imsAnswer);

        List<String> calls = rtp.list();
        System.out.println("list: " + calls);
        assertTrue(calls.containsAll(List.of("mo-1@gw", "mt-1@ims")));

        // The "IMS UE" of the MO call sends 10 RTP packets (PT 111, 20-byte payload) to the IMS-leg port.
        int imsPort = mediaPort(imsOffer);
        try (ue) {
            for (int seq = 0; seq < 10; seq++) {
                byte[] rtpPacket = ByteBuffer.allocate(32).put((byte) 0x80).put((byte) 111).putShort((short) seq)
                        .putInt(seq * 960).putInt(0x1234).array();
                ue.send(new DatagramPacket(rtpPacket, rtpPacket.length, InetAddress.getLoopbackAddress(), imsPort));
                Thread.sleep(20);
            }
        }
        Thread.sleep(300);
        MediaStats mo = rtp.query("mo-1@gw", "mo-ft");
        MediaStats mt = rtp.query("mt-1@ims", "mt-tt");
        System.out.println("query MO: " + mo + "\nquery MT: " + mt);
        assertEquals(new MediaStats("opus/48000", "opus/48000", 0, 10, 0, 320), mo);
        assertEquals(new MediaStats("PCMA/8000", "PCMA/8000", 0, 0, 0, 0), mt);

        MediaStats moFinal = rtp.delete("mo-1@gw", "mo-ft");
        MediaStats mtFinal = rtp.delete("mt-1@ims", "mt-tt");
        System.out.println("delete MO: " + moFinal + "\ndelete MT: " + mtFinal);
        assertEquals(mo, moFinal);
        List<String> after = rtp.list();
        System.out.println("list after delete: " + after);
        assertEquals(List.of(), after);
    }

    /** imsCodec forces one codec toward IMS while the browser keeps Opus, even though it offered PCMA too. */
    @Test
    void moForcedCodecTranscodesAgainstRealRtpengine() throws Exception {
        for (ImsCodec codec : List.of(ImsCodec.PCMA, ImsCodec.G722)) {
            String id = "mo-tx-" + codec.wire + "@gw";
            String imsOffer = rtp.offerFromBrowser(id, "tx-ft", null, CHROME_OFFER, codec, false);
            print("MO " + codec.wire + " offer toward IMS", imsOffer);
            assertImsLeg(imsOffer);
            Matcher m = Pattern.compile("(?m)^m=audio \\d+ RTP/AVP (\\d+) (\\d+)\r?$").matcher(imsOffer);
            assertTrue(m.find(), "exactly the forced codec + telephone-event toward IMS");
            assertTrue(imsOffer.contains("a=rtpmap:" + m.group(1) + " " + codec.wire + "/8000"), codec.wire);
            assertTrue(imsOffer.contains("a=rtpmap:" + m.group(2) + " telephone-event/8000"));
            String ueAnswer = String.join("\r\n", "v=0", "o=ue1 1 1 IN IP4 127.0.0.1", "s=-",
                    "c=IN IP4 127.0.0.1", "t=0 0", "m=audio 6000 RTP/AVP " + m.group(1),
                    "a=rtpmap:" + m.group(1) + " " + codec.wire + "/8000", "a=sendrecv", "");
            String browserAnswer = rtp.answerFromIms(id, "tx-ft", "tx-tt", ueAnswer, "active", false);
            print("MO " + codec.wire + " answer toward browser", browserAnswer);
            assertBrowserLeg(browserAnswer);
            assertEquals("opus/48000", SdpCodec.firstAudioCodec(browserAnswer), "browser keeps Opus");
            rtp.delete(id, "tx-ft");
        }
    }

    /** An IMS offer without Opus: the browser is offered Opus first, then the IMS codecs for pass-through. */
    @Test
    void mtOfferWithoutOpusAddsTranscodedOpusFirst() throws Exception {
        String browserOffer = rtp.offerFromIms("mt-tx@ims", "mttx-ft", null, UE2_OFFER, false);
        print("MT offer (no opus from IMS) toward browser", browserOffer);
        assertEquals(List.of("opus", "PCMA", "PCMU", "telephone-event"), SdpCodec.audioEncodings(browserOffer));
        String imsAnswer = rtp.answerFromBrowser("mt-tx@ims", "mttx-ft", "mttx-tt",
                CHROME_ANSWER.replace("m=audio 50002 UDP/TLS/RTP/SAVPF 8 101", "m=audio 50002 UDP/TLS/RTP/SAVPF 111")
                        .replace("a=rtpmap:8 PCMA/8000", "a=rtpmap:111 opus/48000/2")
                        .replace("a=rtpmap:101 telephone-event/8000\r\na=fmtp:101 0-15\r\n", ""));
        print("MT answer toward IMS (browser took opus)", imsAnswer);
        assertEquals("PCMA/8000", SdpCodec.firstAudioCodec(imsAnswer));
        rtp.delete("mt-tx@ims", "mttx-tt");
    }

    /**
     * Pure relaying by default, inject-DTMF per call: an MT offer sent again with the flag (the browser's
     * `answer {dtmf: "inject"}`) gives the browser the same SDP, and the query then reports transcoding.
     */
    @Test
    void relayedByDefaultAndInjectDtmfPerCall() throws Exception {
        String opusOffer = UE2_OFFER.replace("m=audio 6100 RTP/AVP 8 0 101", "m=audio 6100 RTP/AVP 111 110")
                .replace("a=rtpmap:8 PCMA/8000\r\na=rtpmap:0 PCMU/8000\r\na=rtpmap:101 telephone-event/8000\r\na=fmtp:101 0-15",
                        "a=rtpmap:111 opus/48000/2\r\na=rtpmap:110 telephone-event/48000\r\na=fmtp:110 0-15");
        String opusAnswer = CHROME_ANSWER.replace("m=audio 50002 UDP/TLS/RTP/SAVPF 8 101", "m=audio 50002 UDP/TLS/RTP/SAVPF 111 110")
                .replace("a=rtpmap:8 PCMA/8000\r\na=rtpmap:101 telephone-event/8000\r\na=fmtp:101 0-15",
                        "a=rtpmap:111 opus/48000/2\r\na=rtpmap:110 telephone-event/48000\r\na=fmtp:110 0-15");
        assertFalse(RtpEngineClient.mtOfferTranscodes(opusOffer));
        for (boolean inject : List.of(false, true)) {
            String id = "mt-relay-" + inject + "@ims";
            String first = rtp.offerFromIms(id, "r-ft", null, opusOffer, false);
            if (inject) {
                String again = rtp.offerFromIms(id, "r-ft", null, opusOffer, true);
                assertEquals(first, again, "the repeated offer with inject-DTMF gives the browser's SDP unchanged");
            }
            rtp.answerFromBrowser(id, "r-ft", "r-tt", opusAnswer);
            MediaStats q = rtp.query(id, "r-tt");
            System.out.println("query MT inject=" + inject + ": " + q);
            assertEquals("opus/48000", q.codecBrowser());
            assertEquals("opus/48000", q.codecIms());
            assertEquals(inject, q.transcoded(), "transcoding reported exactly when inject-DTMF is on");
            rtp.delete(id, "r-tt");
        }
        // MO, forced PCMA: transcoded
        String imsOffer = rtp.offerFromBrowser("mo-pcma@gw", "p-ft", null, CHROME_OFFER, ImsCodec.PCMA, false);
        Matcher m = Pattern.compile("(?m)^m=audio \\d+ RTP/AVP (\\d+)").matcher(imsOffer);
        assertTrue(m.find());
        rtp.answerFromIms("mo-pcma@gw", "p-ft", "p-tt", String.join("\r\n", "v=0", "o=ue1 1 1 IN IP4 127.0.0.1", "s=-",
                "c=IN IP4 127.0.0.1", "t=0 0", "m=audio 6000 RTP/AVP " + m.group(1), "a=rtpmap:" + m.group(1) + " PCMA/8000",
                "a=sendrecv", ""), "active", true);
        MediaStats pcma = rtp.query("mo-pcma@gw", "p-ft");
        System.out.println("query MO PCMA: " + pcma);
        assertTrue(pcma.transcoded(), "Opus -> PCMA is transcoded");
        rtp.delete("mo-pcma@gw", "p-ft");
    }

    @Test
    void deleteOfUnansweredMtCallRemovesIt() throws Exception {
        rtp.offerFromIms("mt-2@ims", "mt2-ft", null, UE2_OFFER, false);
        assertTrue(rtp.list().contains("mt-2@ims"));
        // The browser never answered: its to-tag is unknown to rtpengine.
        System.out.println("delete unanswered MT: " + rtp.delete("mt-2@ims", "never-sent-tag"));
        assertFalse(rtp.list().contains("mt-2@ims"));
    }

    @Test
    void unknownCallIsErrorResult() {
        NgException e = org.junit.jupiter.api.Assertions.assertThrows(NgException.class,
                () -> rtp.query("no-such-call", "x"));
        System.out.println("query unknown: " + e.kind() + " " + e.getMessage());
        assertEquals(NgException.Kind.ERROR_RESULT, e.kind());
    }

    static void assertImsLeg(String sdp) {
        assertTrue(Pattern.compile("(?m)^m=audio \\d+ RTP/AVP ").matcher(sdp).find(), "RTP/AVP");
        for (String banned : List.of("a=ice-", "a=candidate", "a=fingerprint", "a=setup", "a=extmap:",
                "a=rtcp-mux", "a=group:BUNDLE", "SAVP")) {
            assertFalse(sdp.contains(banned), "IMS leg must not carry " + banned);
        }
    }

    static void assertBrowserLeg(String sdp) {
        assertTrue(sdp.contains(" UDP/TLS/RTP/SAVPF "), "SAVPF");
        for (String needed : List.of("a=fingerprint:sha-256 ", "a=ice-ufrag:", "a=ice-pwd:",
                "a=candidate:", "a=rtcp-mux")) {
            assertTrue(sdp.contains(needed), "browser leg needs " + needed);
        }
    }

    static int mediaPort(String sdp) {
        Matcher m = Pattern.compile("(?m)^m=audio (\\d+) ").matcher(sdp);
        assertTrue(m.find());
        return Integer.parseInt(m.group(1));
    }

    private static void print(String title, String sdp) {
        System.out.println("---- " + title + "\n" + sdp.replace("\r\n", "\n"));
    }
}

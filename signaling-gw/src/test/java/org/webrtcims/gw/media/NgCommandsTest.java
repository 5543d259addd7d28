package org.webrtcims.gw.media;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each ng command's dictionary as NgCommands builds it (no I/O; what goes on the wire is NgWireGoldenTest's). */
class NgCommandsTest {
    private static final String IN_SDP = "v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n";
    private static final String OUT_SDP = "v=0\r\nm=audio 30000 RTP/AVP 111\r\na=rtpmap:111 opus/48000/2\r\n";

    private final NgCommands plain = new NgCommands(RtpEngineLegs.DEFAULT, "");
    private final NgCommands named = new NgCommands(new RtpEngineLegs("pub", "ims", true), "gw5070-");

    @Test
    void moOfferFromBrowserTowardIms() {
        assertEquals(Map.of(
                "command", "offer", "call-id", "cid", "from-tag", "ftag", "sdp", IN_SDP,
                "transport-protocol", "RTP/AVP", "ICE", "remove", "rtcp-mux", List.of("demux"),
                "flags", List.of("trust-address", "strip-extmap"),
                "replace", List.of("origin", "session-connection")), plain.offerFromBrowser("cid", "ftag", null, IN_SDP, null));
    }

    @Test
    void moAnswerFromImsTowardBrowserRelaysByDefault() {
        assertEquals(Map.of(
                "command", "answer", "call-id", "cid", "from-tag", "ftag", "to-tag", "ttag", "sdp", IN_SDP,
                "transport-protocol", "UDP/TLS/RTP/SAVPF", "ICE", "force",
                "rtcp-mux", List.of("offer", "require"), "DTLS", "active"),
                plain.answerFromIms("cid", "ftag", "ttag", IN_SDP, "active", false));
    }

    @Test
    void mtOfferFromImsTowardBrowser() {
        assertEquals(Map.of(
                "command", "offer", "call-id", "cid", "from-tag", "imstag", "sdp", IN_SDP,
                "transport-protocol", "UDP/TLS/RTP/SAVPF", "ICE", "force",
                "rtcp-mux", List.of("offer", "require"), "SDES", List.of("off"),
                "flags", List.of("generate-mid", "trust-address")), plain.offerFromIms("cid", "imstag", null, IN_SDP, false, null));
    }

    @Test
    void mtAnswerFromBrowserTowardIms() {
        assertEquals(Map.of(
                "command", "answer", "call-id", "cid", "from-tag", "imstag", "to-tag", "brtag", "sdp", IN_SDP,
                "transport-protocol", "RTP/AVP", "ICE", "remove", "rtcp-mux", List.of("demux"),
                "flags", List.of("trust-address", "strip-extmap"), "replace", List.of("origin")),
                plain.answerFromBrowser("cid", "imstag", "brtag", IN_SDP));
    }

    /** Per call: inject-DTMF only on the commands toward the browser, and only when the call asks for it. */
    @Test
    void dtmfInjectionIsAPerCallFlagOnTheCommandsTowardTheBrowser() {
        assertEquals(List.of("inject-DTMF"), plain.answerFromIms("cid", "ftag", "ttag", IN_SDP, "active", true).get("flags"));
        assertEquals(List.of("generate-mid", "trust-address", "inject-DTMF"),
                plain.offerFromIms("cid", "imstag", null, IN_SDP, true, null).get("flags"));
        assertEquals(List.of("trust-address", "strip-extmap"), plain.answerFromBrowser("cid", "imstag", "brtag", IN_SDP).get("flags"),
                "the commands toward IMS never carry it");
    }

    @Test
    void reoffersNameBothTagsKeepPortsAndTheDtlsRole() {
        Map<String, Object> fromBrowser = plain.offerFromBrowser("cid", "btag", "itag", IN_SDP, null);
        assertEquals("itag", fromBrowser.get("to-tag"));
        assertEquals(List.of("trust-address", "strip-extmap", "port-latching"), fromBrowser.get("flags"));
        Map<String, Object> fromIms = plain.offerFromIms("cid", "itag", "btag", IN_SDP, true, null);
        assertEquals("btag", fromIms.get("to-tag"));
        assertEquals(List.of("generate-mid", "trust-address", "inject-DTMF", "port-latching"), fromIms.get("flags"));
        assertEquals("passive", plain.answerFromIms("cid", "btag", "itag", IN_SDP, "passive", false).get("DTLS"));
    }

    @Test
    void aCodecDictionaryIsPassedAsItIs() {
        Map<String, Object> codec = Map.of("transcode", List.of("telephone-event/48000"));
        assertEquals(codec, plain.offerFromBrowser("cid", "f", null, IN_SDP, codec).get("codec"));
        assertEquals(codec, plain.offerFromIms("cid", "f", null, IN_SDP, false, codec).get("codec"));
        assertFalse(plain.offerFromIms("cid", "f", null, IN_SDP, false, null).containsKey("codec"));
    }

    /** Issue #17: named rtpengine interfaces per leg and rtpengine ICE-lite toward the browser. */
    @Test
    void namedInterfacesAndIceLiteOnEveryLeg() {
        Map<String, Object> mo = named.offerFromBrowser("c1", "br", null, IN_SDP, null);
        assertEquals(List.of("pub", "ims"), mo.get("direction"));
        assertEquals("backward", mo.get("ICE-lite"), "MO: lite toward the offering browser");
        Map<String, Object> moAnswer = named.answerFromIms("c1", "br", "ims", OUT_SDP, "active", false);
        assertEquals(List.of("ims", "pub"), moAnswer.get("direction"));
        assertFalse(moAnswer.containsKey("ICE-lite"), "ICE-lite is an offer-only key");
        Map<String, Object> mt = named.offerFromIms("c2", "ims", null, OUT_SDP, false, null);
        assertEquals(List.of("ims", "pub"), mt.get("direction"));
        assertEquals("forward", mt.get("ICE-lite"), "MT: lite toward the browser the offer goes to");
        Map<String, Object> mtAnswer = named.answerFromBrowser("c2", "ims", "br", IN_SDP);
        assertEquals(List.of("pub", "ims"), mtAnswer.get("direction"));
        assertFalse(mtAnswer.containsKey("ICE-lite"));
        Map<String, Object> dflt = plain.offerFromIms("c3", "ims", null, OUT_SDP, false, null);
        assertFalse(dflt.containsKey("direction"), "default legs: no direction");
        assertFalse(dflt.containsKey("ICE-lite"), "default legs: full ICE");
    }

    @Test
    void mdnsOnlyBrowserSdpReachesRtpengineWithoutZeroAddressOrHostNamedRtcp() {
        String firefox = String.join("\r\n", "v=0", "m=audio 9 UDP/TLS/RTP/SAVPF 109", "c=IN IP4 0.0.0.0",
                "a=candidate:0 1 UDP 2122252543 afdc9c45-cd7c-492d-8f94-b8096b2155bd.local 48028 typ host",
                "a=rtcp:40147 IN IP4 afdc9c45-cd7c-492d-8f94-b8096b2155bd.local", "a=rtcp-mux", "");
        for (Map<String, Object> cmd : List.of(plain.offerFromBrowser("c4", "br", null, firefox, null),
                plain.answerFromBrowser("c4", "ims", "br", firefox))) {
            String sdp = (String) cmd.get("sdp");
            assertTrue(sdp.contains("c=IN IP4 " + NgFlags.MDNS_PLACEHOLDER + "\r\n"), sdp);
            assertFalse(sdp.contains("a=rtcp:40147"), sdp);
            assertTrue(sdp.contains(".local 48028 typ host"), "candidates are left for rtpengine: " + sdp);
        }
    }

    @Test
    void playDtmfQueryDeleteAndListCommands() {
        assertEquals(Map.of("command", "play DTMF", "call-id", "gw5070-cid", "from-tag", "browser-tag", "code", "#",
                "duration", 160, "volume", 8, "pause", 100), named.playDtmf("cid", "browser-tag", '#', 160));
        assertEquals(Map.of("command", "query", "call-id", "gw5070-cid"), named.query("cid"));
        assertEquals(Map.of("command", "delete", "call-id", "gw5070-cid", "from-tag", "brtag", "delete-delay", 0),
                named.delete("cid", "brtag"));
        assertEquals(Map.of("command", "delete", "call-id", "gw5070-cid", "delete-delay", 0), named.delete("cid", null));
        assertEquals(Map.of("command", "list", "limit", 1000), NgCommands.list());
        assertEquals(Map.of("command", "statistics"), NgCommands.statistics());
        assertEquals(Map.of("command", "ping"), NgCommands.ping());
    }

    @Test
    void theSessionPrefixIsOnEveryCallIdAndTellsThisGatewaysSessions() {
        assertEquals("gw5070-c1", named.offerFromBrowser("c1", "f", null, IN_SDP, null).get("call-id"));
        assertEquals("gw5070-c1", named.ngId("c1"));
        assertEquals("a", named.callIdOf("gw5070-a"));
        assertNull(named.callIdOf("gw5071-a"), "another gateway's session");
        assertNull(named.callIdOf(null));
        assertEquals("x", plain.callIdOf("x"), "no prefix: every session");
        assertThrows(IllegalArgumentException.class, () -> new NgCommands(RtpEngineLegs.DEFAULT, "a b"));
        assertThrows(IllegalArgumentException.class, () -> new NgCommands(RtpEngineLegs.DEFAULT, null));
    }

    @Test
    void aMissingTagOrSdpIsRefusedBeforeAnythingIsSent() {
        assertThrows(NullPointerException.class, () -> plain.offerFromBrowser("c", null, null, IN_SDP, null));
        assertThrows(NullPointerException.class, () -> plain.answerFromIms("c", "f", "t", null, "active", false));
        assertThrows(NullPointerException.class, () -> plain.answerFromIms("c", "f", "t", IN_SDP, null, false));
        assertThrows(NullPointerException.class, () -> plain.query(null));
    }
}

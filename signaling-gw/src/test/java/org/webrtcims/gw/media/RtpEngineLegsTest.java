package org.webrtcims.gw.media;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The legs' interfaces (ng `direction`) and ICE-lite (issue #17). */
class RtpEngineLegsTest {
    @Test
    void oneInterfaceNameWithoutTheOtherIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RtpEngineLegs("pub", null, false));
        assertEquals("name both rtpengine interfaces (browser and IMS) or neither", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new RtpEngineLegs(null, "ims", true));
    }

    @Test
    void directionNamesTheSendersInterfaceFirstAndIceLiteOnlyOnOffers() {
        RtpEngineLegs legs = new RtpEngineLegs("pub", "ims", true);
        Map<String, Object> fromBrowser = new LinkedHashMap<>();
        legs.fromBrowser(fromBrowser, "backward");
        assertEquals(Map.of("direction", List.of("pub", "ims"), "ICE-lite", "backward"), fromBrowser);
        Map<String, Object> answerFromIms = new LinkedHashMap<>();
        legs.fromIms(answerFromIms, null);
        assertEquals(Map.of("direction", List.of("ims", "pub")), answerFromIms);
    }

    @Test
    void theDefaultLegsAddNothing() {
        Map<String, Object> cmd = new LinkedHashMap<>();
        RtpEngineLegs.DEFAULT.fromBrowser(cmd, "backward");
        RtpEngineLegs.DEFAULT.fromIms(cmd, "forward");
        assertEquals(Map.of(), cmd);
        Map<String, Object> liteOnly = new LinkedHashMap<>();
        new RtpEngineLegs(null, null, true).fromIms(liteOnly, "forward");
        assertEquals(Map.of("ICE-lite", "forward"), liteOnly, "ICE-lite without named interfaces");
    }

    @Test
    void anIpv6ImsLegNamesTheRecipientsAddressFamilyOnEveryCommand() {
        RtpEngineLegs legs = new RtpEngineLegs("pub", "ims", RtpEngineLegs.IceLite.ALL, true);
        Map<String, Object> towardIms = new LinkedHashMap<>();
        legs.fromBrowser(towardIms, "backward");
        assertEquals("IP6", towardIms.get("address family"), "an SDP from the browser goes to IMS: IP6");
        assertEquals(List.of("pub", "ims"), towardIms.get("direction"));
        Map<String, Object> towardBrowser = new LinkedHashMap<>();
        legs.fromIms(towardBrowser, "forward");
        assertEquals("IP4", towardBrowser.get("address family"), "an SDP from IMS goes to the browser: IP4");
        Map<String, Object> sameFamily = new LinkedHashMap<>();
        new RtpEngineLegs("pub", "ims", true).fromBrowser(sameFamily, null);
        assertEquals(Map.of("direction", List.of("pub", "ims")), sameFamily, "IPv4 on both legs: no address family key");
    }

    @Test
    void anActpassBrowserGetsTheConfiguredDtlsRoleAndOtherOffersTheOppositeOfTheirs() {
        NgCommands byDefault = new NgCommands(new RtpEngineLegs(null, null, RtpEngineLegs.IceLite.ALL, false), "gw-");
        NgCommands autoLite = new NgCommands(new RtpEngineLegs(null, null, RtpEngineLegs.IceLite.ALL, false, "auto"), "gw-");
        NgCommands autoFullIce = new NgCommands(new RtpEngineLegs(null, null, RtpEngineLegs.IceLite.OFF, false, "auto"), "gw-");
        NgCommands autoLiteOnMt = new NgCommands(new RtpEngineLegs(null, null, RtpEngineLegs.IceLite.MT, false, "auto"), "gw-");
        NgCommands passive = new NgCommands(new RtpEngineLegs(null, null, RtpEngineLegs.IceLite.OFF, false, "passive"), "gw-");
        String sdp = "v=0\r\nm=audio 9 RTP/AVP 0\r\n";
        String either = org.webrtcims.gw.sdp.DtlsRole.EITHER;
        assertEquals("active", byDefault.answerFromIms("c", "f", "t", sdp, either, false).get("DTLS"),
                "actpass offer, default (active) with ICE-lite on every call: rtpengine is the DTLS client, so a lost last "
                        + "flight is the browser's to resend (rtpengine 10.5 as server never resends its own)");
        assertEquals("passive", autoLite.answerFromIms("c", "f", "t", sdp, either, false).get("DTLS"),
                "actpass offer, auto with ICE-lite on every call: the browser is the DTLS client");
        assertEquals("active", autoFullIce.answerFromIms("c", "f", "t", sdp, either, false).get("DTLS"),
                "actpass offer, auto with full ICE: rtpengine is the DTLS client");
        assertEquals("active", autoLiteOnMt.answerFromIms("c", "f", "t", sdp, either, false).get("DTLS"),
                "actpass offer, auto with ice-lite=mt: a browser offer opens the call, so full ICE and rtpengine active");
        assertEquals("passive", passive.answerFromIms("c", "f", "t", sdp, either, false).get("DTLS"),
                "actpass offer, dtls-on-actpass=passive: the browser is the DTLS client even with full ICE");
        assertEquals("active", passive.answerFromIms("c", "f", "t", sdp, "active", false).get("DTLS"),
                "a browser that offered passive still gets an active relay whatever the setting");
        assertEquals("passive", byDefault.answerFromIms("c", "f", "t", sdp, "passive", false).get("DTLS"),
                "a browser that offered active gets a passive relay whatever the setting");
        assertEquals("active", RtpEngineLegs.dtlsOnActpass(""), "empty: the default");
        assertEquals("active", RtpEngineLegs.dtlsOnActpass(null), "unset: the default");
        assertEquals("auto", RtpEngineLegs.dtlsOnActpass(" AUTO "), "auto is still a choice");
        assertEquals("active", new RtpEngineLegs(null, null, RtpEngineLegs.IceLite.ALL, false).dtlsOnActpass(), "the short constructor: active");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RtpEngineLegs.dtlsOnActpass("holdconn"));
        assertEquals("lab.rtpengine.dtls-on-actpass must be auto, active or passive, not 'holdconn'", e.getMessage());
    }

    @Test
    void answersLeaveIceLiteOutForABrowserOfOneAddressUnderAutoAlwaysUnderFalseNeverUnderTrue() {
        String lite = "v=0\r\ns=-\r\na=ice-lite\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n";
        String without = "v=0\r\ns=-\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n";
        String oneAddress = "v=0\r\ns=-\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"
                + "a=candidate:1 1 udp 2122260223 198.18.0.2 40000 typ host\r\n"
                + "a=candidate:2 1 tcp 1518280447 198.18.0.2 9 typ host tcptype active\r\n"
                + "a=candidate:3 1 udp 1686052607 203.0.113.7 40000 typ srflx raddr 198.18.0.2 rport 40000\r\n";
        String twoAddresses = oneAddress + "a=candidate:4 1 udp 2122194687 198.18.16.1 40001 typ host\r\n";
        String noHost = "v=0\r\ns=-\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n";

        RtpEngineLegs auto = new RtpEngineLegs(null, null, RtpEngineLegs.IceLite.ALL, false, "active", RtpEngineLegs.LiteInAnswers.AUTO);
        assertTrue(auto.hidesLiteInAnswer(oneAddress), "auto, host candidates of one address: a=ice-lite left out");
        assertFalse(auto.hidesLiteInAnswer(twoAddresses), "auto, two host addresses: a browser that may check from one rtpengine cannot answer is told");
        assertFalse(auto.hidesLiteInAnswer(noHost), "auto, no host candidate: kept");
        RtpEngineLegs always = new RtpEngineLegs(null, null, RtpEngineLegs.IceLite.ALL, false, "active", RtpEngineLegs.LiteInAnswers.FALSE);
        assertTrue(always.hidesLiteInAnswer(twoAddresses), "ice-lite-in-answers=false: left out whatever the offer");
        RtpEngineLegs kept = new RtpEngineLegs(null, null, RtpEngineLegs.IceLite.ALL, false, "active");
        assertFalse(kept.hidesLiteInAnswer(oneAddress), "ice-lite-in-answers=true: as rtpengine wrote it");
        RtpEngineLegs mt = new RtpEngineLegs(null, null, RtpEngineLegs.IceLite.MT, false, "active", RtpEngineLegs.LiteInAnswers.FALSE);
        assertFalse(mt.hidesLiteInAnswer(oneAddress), "ice-lite=mt runs full ICE on calls the browser opens: nothing to take out");

        assertEquals(without, auto.answerToBrowser(lite, true));
        assertEquals(lite, auto.answerToBrowser(lite, false));
        assertEquals(RtpEngineLegs.LiteInAnswers.AUTO, RtpEngineLegs.LiteInAnswers.parse(" Auto "));
        assertEquals(RtpEngineLegs.LiteInAnswers.AUTO, RtpEngineLegs.LiteInAnswers.parse(""));
        assertEquals(RtpEngineLegs.LiteInAnswers.FALSE, RtpEngineLegs.LiteInAnswers.parse("false"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RtpEngineLegs.LiteInAnswers.parse("maybe"));
        assertEquals("lab.rtpengine.ice-lite-in-answers must be auto, true or false, not 'maybe'", e.getMessage());
    }
}

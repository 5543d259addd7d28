package org.webrtcims.gw.media;

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
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * IPv4/IPv6 interworking (TS 23.334, issue #23) through a REAL rtpengine with an IPv4 browser interface "pub" and an
 * IPv6 IMS interface "ims" on ::1: the gateway's commands (RtpEngineLegs with imsIpv6) make every SDP toward IMS
 * say c=IN IP6 with rtpengine's IPv6 address, every SDP toward the browser IN IP4 with IPv4 candidates only, and
 * RTP from an IPv6 UE reaches the call. Skipped only when this host has no IPv6 loopback.
 */
@Tag("rtpengine")
class RtpEngineIpv6RealTest {
    private static final InetAddress V6 = v6();
    private static LocalRtpengine rtpengine;
    /** Where media would go over IPv6 (the o= line's origin address is no media address and may stay the UE's). */
    private static final Pattern IPV6_MEDIA = Pattern.compile("(?m)^(c=IN IP6 |a=candidate:\\S+ \\d+ \\S+ \\d+ [0-9a-fA-F:]*:[0-9a-fA-F:]* )");

    private static InetAddress v6() {
        try {
            return InetAddress.getByName("::1");
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    @BeforeAll
    static void start() throws Exception {
        boolean v6 = true;
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(V6, 0))) {
            v6 = s.isBound();
        } catch (java.io.IOException e) {
            v6 = false;
        }
        Assumptions.assumeTrue(v6, "no IPv6 loopback (::1) on this host");
        rtpengine = LocalRtpengine.start(List.of("--interface=pub/127.0.0.1", "--interface=ims/::1"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (rtpengine != null) rtpengine.close();
    }

    private static String ip6(String ipv4Sdp, int port) {
        return ipv4Sdp.replace("IN IP4 127.0.0.1", "IN IP6 ::1").replaceFirst("m=audio \\d+ ", "m=audio " + port + " ");
    }

    @Test
    void imsLegIsIpv6AndBrowserLegIpv4BothWays() throws Exception {
        try (NgClient ng = new NgClient(rtpengine.ng, Duration.ofMillis(500), 3);
             DatagramSocket ue = new DatagramSocket(new InetSocketAddress(V6, 0))) {
            RtpEngineClient rtp = Clients.over(ng, new RtpEngineLegs("pub", "ims", RtpEngineLegs.IceLite.ALL, true), "v6-");

            String imsOffer = rtp.offerFromBrowser("mo-v6@gw", "ft", null, RtpEngineRealTest.CHROME_OFFER, null, false);
            RtpEngineRealTest.assertImsLeg(imsOffer);
            assertTrue(imsOffer.contains("\r\nc=IN IP6 ::1\r\n"), "MO offer toward IMS: c=IN IP6 on the ims interface:\n" + imsOffer);
            assertFalse(imsOffer.contains("IP4"), "nothing IPv4 toward an IPv6-only IMS:\n" + imsOffer);
            String browserAnswer = rtp.answerFromIms("mo-v6@gw", "ft", "tt", ip6(RtpEngineRealTest.UE1_ANSWER, ue.getLocalPort()), "active", false);
            RtpEngineRealTest.assertBrowserLeg(browserAnswer);
            assertTrue(browserAnswer.contains("\r\nc=IN IP4 127.0.0.1\r\n"), "MO answer toward the browser stays IPv4:\n" + browserAnswer);
            assertFalse(IPV6_MEDIA.matcher(browserAnswer).find(), "no IPv6 c= line or candidate toward the browser:\n" + browserAnswer);

            String browserOffer = rtp.offerFromIms("mt-v6@ims", "mft", null, ip6(RtpEngineRealTest.UE2_OFFER, 6100), false);
            RtpEngineRealTest.assertBrowserLeg(browserOffer);
            assertTrue(browserOffer.contains("\r\nc=IN IP4 127.0.0.1\r\n"), "MT offer toward the browser is IPv4:\n" + browserOffer);
            assertFalse(IPV6_MEDIA.matcher(browserOffer).find(), "no IPv6 c= line or candidate toward the browser:\n" + browserOffer);
            String imsAnswer = rtp.answerFromBrowser("mt-v6@ims", "mft", "mtt", RtpEngineRealTest.CHROME_ANSWER);
            RtpEngineRealTest.assertImsLeg(imsAnswer);
            assertTrue(imsAnswer.contains("\r\nc=IN IP6 ::1\r\n"), "MT answer toward IMS: c=IN IP6:\n" + imsAnswer);

            // the IPv6 UE of the MO call sends RTP to rtpengine's IPv6 IMS port; the call counts it
            int imsPort = RtpEngineRealTest.mediaPort(imsOffer);
            for (int seq = 0; seq < 5; seq++) {
                byte[] p = ByteBuffer.allocate(32).put((byte) 0x80).put((byte) 111).putShort((short) seq).putInt(seq * 960).putInt(0x6666).array();
                ue.send(new DatagramPacket(p, p.length, V6, imsPort));
                Thread.sleep(20);
            }
            Thread.sleep(300);
            MediaStats mo = rtp.query("mo-v6@gw", "ft");
            assertEquals(5, mo.packetsToBrowser(), "RTP from the IPv6 UE reached the call: " + mo);
            rtp.delete("mo-v6@gw", "ft");
            rtp.delete("mt-v6@ims", "mtt");
        }
    }
}

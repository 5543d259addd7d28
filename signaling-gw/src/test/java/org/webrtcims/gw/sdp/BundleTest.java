package org.webrtcims.gw.sdp;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** BUNDLE handling toward the browser (rtpengine 10.5 cannot demultiplex bundled media). */
class BundleTest {
    private static final String CAND = "a=candidate:1 1 udp 2122260223 127.0.0.1 %d typ host\r\n";

    private static String offer(String group, String... sections) {
        StringBuilder sb = new StringBuilder("v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n");
        if (group != null) sb.append("a=group:BUNDLE ").append(group).append("\r\n");
        for (String s : sections) sb.append(s);
        return sb.toString();
    }

    private static String audio(int port, boolean candidates) {
        return "m=audio " + port + " UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\na=rtpmap:111 opus/48000/2\r\n"
                + (candidates ? CAND.formatted(port) : "");
    }

    private static String video(int port, boolean candidates, String extra) {
        return "m=video " + port + " UDP/TLS/RTP/SAVPF 96\r\na=mid:1\r\na=rtpmap:96 VP8/90000\r\n" + extra
                + (candidates ? CAND.formatted(port) : "");
    }

    @Test
    void readsTheGroup() {
        assertEquals(List.of("0", "1"), Bundle.group(offer("0 1", audio(5000, true), video(5002, true, ""))));
        assertEquals(List.of(), Bundle.group(offer(null, audio(5000, true))));
    }

    @Test
    void balancedOfferWithOwnTransportPerMlineIsAccepted() {
        assertNull(Bundle.sharedTransport(offer("0 1", audio(5000, true), video(5002, true, ""))));
    }

    @Test
    void maxBundleOfferIsRefusedWithAReason() {
        // Chrome max-bundle: the video m-line has port 9 and no candidates of its own
        String why = Bundle.sharedTransport(offer("0 1", audio(5000, true), video(9, false, "")));
        assertNotNull(why);
        assertTrue(why.contains("max-bundle") && why.contains("rtpengine 10.5"), why);
    }

    @Test
    void bundleOnlyIsRefused() {
        assertNotNull(Bundle.sharedTransport(offer("0 1", audio(5000, true), video(0, false, "a=bundle-only\r\n"))));
    }

    @Test
    void oneMlineGroupOrNoGroupIsNeverRefused() {
        assertNull(Bundle.sharedTransport(offer("0", audio(5000, true))));
        assertNull(Bundle.sharedTransport(offer(null, audio(5000, true), video(5002, true, ""))));
    }

    @Test
    void answerKeepsAOneMlineGroupBeforeTheFirstMline() {
        String answer = offer(null, audio(30000, true));
        String out = Bundle.answerKeepingSingleGroup(offer("0", audio(5000, true)), answer);
        assertTrue(out.contains("t=0 0\r\na=group:BUNDLE 0\r\nm=audio 30000"), out);
    }

    @Test
    void answerToATwoMlineGroupStaysUnbundled() {
        String answer = offer(null, audio(30000, true), video(30010, true, ""));
        assertEquals(answer, Bundle.answerKeepingSingleGroup(offer("0 1", audio(5000, true), video(5002, true, "")), answer));
    }

    @Test
    void rejectedMlineIsNotGrouped() {
        String answer = offer(null, audio(0, false));
        assertEquals(answer, Bundle.answerKeepingSingleGroup(offer("0", audio(5000, true)), answer));
    }

    @Test
    void offerTowardBrowserGetsAGroupOnlyWithOneMline() {
        assertTrue(Bundle.offerWithSingleGroup(offer(null, audio(30000, true))).contains("a=group:BUNDLE 0\r\nm=audio"));
        String av = offer(null, audio(30000, true), video(30010, true, ""));
        assertEquals(av, Bundle.offerWithSingleGroup(av));
    }
}

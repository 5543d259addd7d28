package org.webrtcims.gw.media;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * `lab.rtpengine.ice-lite=mt` (issue #26): full ICE on calls the browser offered (it nominates with its
 * first check), ICE-lite on calls rtpengine offers to the browser (MT, where full ICE lost Firefox's calls), also
 * on the browser's re-offers in such a call; checked on the wire, as rtpengine gets the commands.
 */
class RtpEngineIceModeTest {
    private static final String BROWSER_SDP = "v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/48000/2\r\n";
    private static final String IMS_SDP = "v=0\r\nm=audio 30000 RTP/AVP 111\r\na=rtpmap:111 opus/48000/2\r\n";

    private FakeNgPeer peer;
    private NgClient ng;
    private RtpEngineClient client;

    @BeforeEach
    void setUp() throws Exception {
        peer = new FakeNgPeer();
        ng = new NgClient(peer.address(), Duration.ofMillis(2000), 1);
        client = Clients.over(ng, new RtpEngineLegs("pub", "ims", RtpEngineLegs.IceLite.MT), "");
    }

    @AfterEach
    void tearDown() {
        ng.close();
        peer.close();
    }

    @FunctionalInterface
    private interface Ng { void run() throws NgException; }

    /** Runs one client call against the fake rtpengine and returns the command it sent. */
    private Map<String, Object> sent(Ng call, String replySdp) throws Exception {
        CompletableFuture<Void> f = CompletableFuture.runAsync(() -> {
            try {
                call.run();
            } catch (NgException e) {
                throw new CompletionException(e);
            }
        });
        FakeNgPeer.Request req = peer.take();
        peer.reply(req, Map.of("result", "ok", "sdp", replySdp));
        f.get(5, TimeUnit.SECONDS);
        return req.dict();
    }

    @Test
    void browserOfferedCallsRunFullIceAndImsOfferedCallsStayLite() throws Exception {
        Map<String, Object> mo = sent(() -> client.offerFromBrowser("mo-1", "br", null, BROWSER_SDP, null, false), IMS_SDP);
        assertFalse(mo.containsKey("ICE-lite"), "MO first offer: rtpengine runs full ICE toward the browser: " + mo);
        Map<String, Object> moReoffer = sent(() -> client.offerFromBrowser("mo-1", "br", "ims", BROWSER_SDP, null, false), IMS_SDP);
        assertFalse(moReoffer.containsKey("ICE-lite"), "an MO call's re-offer keeps full ICE: " + moReoffer);

        Map<String, Object> mt = sent(() -> client.offerFromIms("mt-1", "ims", null, IMS_SDP, false), BROWSER_SDP);
        assertEquals("forward", mt.get("ICE-lite"), "MT offer: rtpengine is ICE-lite toward the browser");
        Map<String, Object> mtReoffer = sent(() -> client.offerFromBrowser("mt-1", "br", "ims", BROWSER_SDP, null, false), IMS_SDP);
        assertEquals("backward", mtReoffer.get("ICE-lite"), "the browser's re-offer in an MT call keeps ICE-lite");
    }

    @Test
    void theModeIsReadFromItsPropertyValues() {
        assertEquals(RtpEngineLegs.IceLite.MT, RtpEngineLegs.IceLite.parse("mt"));
        assertEquals(RtpEngineLegs.IceLite.ALL, RtpEngineLegs.IceLite.parse("true"));
        assertEquals(RtpEngineLegs.IceLite.OFF, RtpEngineLegs.IceLite.parse(" False "));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RtpEngineLegs.IceLite.parse("yes"));
        assertEquals("lab.rtpengine.ice-lite must be mt, true or false, not 'yes'", e.getMessage());
        RtpEngineLegs mtLegs = new RtpEngineLegs(null, null, RtpEngineLegs.IceLite.MT);
        assertFalse(mtLegs.liteOnBrowserOffer(true), "mt: no ICE-lite where the browser opened the call");
        assertTrue(mtLegs.liteOnBrowserOffer(false), "mt: ICE-lite in a call IMS opened");
        assertTrue(new RtpEngineLegs(null, null, true).liteOnBrowserOffer(true), "true: ICE-lite everywhere");
    }
}

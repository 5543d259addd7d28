package org.webrtcims.gw.media;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The two leg shapes and the flag lists of the ng vocabulary. */
class NgFlagsTest {
    @Test
    void theImsLegIsPlainRtpWithoutIceWithDemuxedRtcp() {
        Map<String, Object> cmd = NgFlags.command("offer");
        NgFlags.towardIms(cmd);
        assertEquals(Map.of("command", "offer", "transport-protocol", "RTP/AVP", "ICE", "remove",
                "rtcp-mux", List.of("demux"), "flags", List.of("trust-address", "strip-extmap")), cmd);
    }

    @Test
    void theBrowserLegIsDtlsSrtpWithIceAndRtcpMuxAndInjectsOnlyWhenAsked() {
        Map<String, Object> relayed = NgFlags.command("answer");
        NgFlags.towardBrowser(relayed, false);
        assertEquals(Map.of("command", "answer", "transport-protocol", "UDP/TLS/RTP/SAVPF", "ICE", "force",
                "rtcp-mux", List.of("offer", "require")), relayed);
        assertFalse(relayed.containsKey("flags"), "a relayed call's browser leg has no flags");
        Map<String, Object> injecting = NgFlags.command("answer");
        NgFlags.towardBrowser(injecting, true);
        assertEquals(List.of("inject-DTMF"), injecting.get("flags"));
    }

    @Test
    void keepPortsAppendsPortLatchingAfterTheFlagsSet() {
        Map<String, Object> cmd = NgFlags.command("offer");
        NgFlags.towardIms(cmd);
        NgFlags.keepPorts(cmd);
        assertEquals(List.of("trust-address", "strip-extmap", "port-latching"), cmd.get("flags"));
        assertEquals(List.of("generate-mid", "inject-DTMF"), NgFlags.flags(true, "generate-mid"));
        assertEquals(List.of("generate-mid"), NgFlags.flags(false, "generate-mid"));
    }
}

package org.webrtcims.gw.call;

import org.junit.jupiter.api.Test;
import org.webrtcims.gw.config.GatewayProperties;

import static org.junit.jupiter.api.Assertions.*;

/** The registry's call quotas: live calls per session and in total, m-lines and candidates per SDP, each its own code. */
class CallRegistryQuotasTest {
    GatewayProperties props = new GatewayProperties();
    CallRegistry registry = new CallRegistry(props);

    private Call live(String id, String token) {
        Call c = new Call(id, Direction.MO, token, "alice", "ue1@ims.lab", "t-" + id, CallState.CALLING);
        registry.add(c);
        return c;
    }

    @Test
    void callsPerSessionAndInTotal() {
        props.getLimits().setCallsPerUser(2);
        props.getLimits().setCallsTotal(3);
        live("a1", "tok-a");
        registry.admit("tok-a");
        Call a2 = live("a2", "tok-a");
        assertEquals("too-many-calls", assertThrows(CallFailure.class, () -> registry.admit("tok-a")).code());
        synchronized (a2) { a2.end("local-hangup"); registry.retire(a2); } // an ended call no longer counts (CallTeardown.finish does both)
        registry.admit("tok-a");
        live("a3", "tok-a");
        live("b1", "tok-b");
        assertEquals("gateway-busy", assertThrows(CallFailure.class, () -> registry.admit("tok-c")).code());
    }

    @Test
    void mlinesAndCandidatesPerSdp() {
        props.getLimits().setMlinesPerSdp(2);
        props.getLimits().setCandidatesPerSdp(2);
        String two = "v=0\r\nm=audio 1 RTP/AVP 0\r\na=candidate:1 1 udp 1 127.0.0.1 1 typ host\r\nm=video 2 RTP/AVP 96\r\n"
                + "a=candidate:2 1 udp 1 127.0.0.1 2 typ host\r\n";
        registry.admitSdp(two);
        registry.admitSdp(null);
        assertEquals("too-many-mlines", assertThrows(CallFailure.class, () -> registry.admitSdp(two + "m=audio 3 RTP/AVP 0\r\n")).code());
        assertEquals("too-many-candidates", assertThrows(CallFailure.class,
                () -> registry.admitSdp(two + "a=candidate:3 1 udp 1 127.0.0.1 3 typ host\r\n")).code());
        // LF alone (RFC 8866 §5 asks parsers to take it), a last line without its break, a line that only contains the prefix
        String lf = two.replace("\r\n", "\n");
        registry.admitSdp(lf + "a=x m=audio a=candidate:9");
        assertEquals("too-many-mlines", assertThrows(CallFailure.class, () -> registry.admitSdp(lf + "m=audio 3 RTP/AVP 0")).code());
        assertEquals("too-many-candidates", assertThrows(CallFailure.class,
                () -> registry.admitSdp("a=candidate:0 1 udp 1 127.0.0.1 3 typ host\n" + lf)).code());
    }
}

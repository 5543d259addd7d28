package org.webrtcims.gw.call;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.webrtcims.gw.media.DtmfLogEvent;

class DtmfTest {
    private final List<String> owners = new ArrayList<>();
    private final List<Map<String, Object>> sent = new ArrayList<>();
    private final CallRegistry registry = new CallRegistry();
    private Dtmf relay;
    private Call mo;
    private Call mt;

    @BeforeEach
    void setUp() {
        relay = new Dtmf(registry, (token, msg) -> {
            owners.add(token);
            sent.add(msg);
        }, org.mockito.Mockito.mock(org.webrtcims.gw.media.RtpEngineClient.class));
        mo = new Call("mo-call", Direction.MO, "tok-a", "alice", "ue6@ims.lab", "browser-ft", CallState.CONFIRMED);
        mo.toTag = "ue-tt";
        mt = new Call("mt-call", Direction.MT, "tok-b", "bob", "ue2@ims.lab", "ue-ft", CallState.CONFIRMED);
        mt.toTag = "browser-tt";
        registry.add(mo);
        registry.add(mt);
    }

    @Test
    void anEventFromTheImsPartyBecomesOneWebSocketDtmf() {
        relay.accept(new DtmfLogEvent("mo-call", "ue-tt", 11, 280));
        relay.accept(new DtmfLogEvent("mt-call", "ue-ft", 1, 100));
        assertEquals(List.of("tok-a", "tok-b"), owners);
        assertEquals(Map.of("type", "dtmf", "callId", "mo-call", "digit", "#", "durationMs", 280, "source", "ims"), sent.get(0));
        assertEquals("1", sent.get(1).get("digit"));
    }

    @Test
    void whatTheBrowserSideSentIsNotEchoedBack() {
        // rtpengine also logs the digits it injects for `play DTMF` and the browser's own RTCDTMFSender events
        relay.accept(new DtmfLogEvent("mo-call", "browser-ft", 1, 100));
        relay.accept(new DtmfLogEvent("mt-call", "browser-tt", 1, 100));
        assertEquals(List.of(), sent);
    }

    @Test
    void unknownCallsEndedCallsAndNonKeyEventsAreDropped() {
        relay.accept(new DtmfLogEvent("other-gateways-call", "x", 1, 100));
        relay.accept(new DtmfLogEvent("mo-call", "ue-tt", 16, 100)); // flash
        mt.state = CallState.ENDED;
        relay.accept(new DtmfLogEvent("mt-call", "ue-ft", 1, 100));
        assertEquals(List.of(), sent);
    }
}

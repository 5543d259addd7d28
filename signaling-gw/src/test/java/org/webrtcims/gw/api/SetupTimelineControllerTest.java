package org.webrtcims.gw.api;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.webrtcims.gw.metrics.SetupTimeline;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

class SetupTimelineControllerTest {
    private static MockHttpServletRequest from(String remote, String local) {
        MockHttpServletRequest r = new MockHttpServletRequest("GET", "/api/v1/setup-timelines");
        r.setRemoteAddr(remote);
        r.setLocalAddr(local);
        return r;
    }

    @Test
    void aClientOnTheGatewaysHostGetsTheTimelinesOthersAreRefused() {
        SetupTimeline t = new SetupTimeline(new SimpleMeterRegistry());
        t.mark("call-1", SetupTimeline.Mark.INVITE_RECEIVED);
        SetupTimelineController c = new SetupTimelineController(t);
        Map<String, Object> out = c.timelines(0, from("127.0.0.1", "127.0.0.1"));
        assertEquals(List.of("call-1"), ((List<?>) out.get("calls")).stream().map(m -> ((Map<?, ?>) m).get("callId")).toList(),
                "a loopback client sees the kept timelines");
        assertEquals("gateway", ((Map<?, ?>) out.get("owners")).get("invite-to-ng-offer"), "each step's owner is listed");
        ApiException e = assertThrows(ApiException.class, () -> c.timelines(0, from("198.18.0.2", "198.18.0.1")),
                "a browser's address must not read other users' Call-IDs");
        assertEquals("loopback-only", e.code(), "refused with the code the other host-only endpoints use");
    }
}

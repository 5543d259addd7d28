package org.webrtcims.gw.api;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.*;
import org.webrtcims.gw.call.CallFailure;
import org.webrtcims.gw.call.CallService;

import java.util.Map;

/** Read-only view of a call for its owner: state, SIP flow, setup time, media counters. */
@RestController
public class CallController {
    private final SessionRegistry sessions;
    private final CallService calls;
    private final org.webrtcims.gw.metrics.SetupTimeline timeline;

    public CallController(SessionRegistry sessions, CallService calls, org.webrtcims.gw.metrics.SetupTimeline timeline) {
        this.sessions = sessions;
        this.calls = calls;
        this.timeline = timeline;
    }

    @GetMapping("/api/v1/calls/{callId}")
    public Map<String, Object> call(@RequestHeader(value = "Authorization", required = false) String auth,
                                    @PathVariable String callId) {
        BrowserSession s = Bearer.session(sessions, auth);
        try {
            Map<String, Object> info = new java.util.LinkedHashMap<>(calls.info(s.token(), callId));
            // where the call's set-up time went, by the gateway's clock, and its thread's CPU time per step (metrics/SetupTimeline);
            // null once dropped
            Map<String, Object> t = timeline.of(callId);
            info.put("setupTimeline", t == null ? null : Map.of("marksMs", t.get("marksMs"), "stepsMs", t.get("stepsMs"),
                    "stepsCpuMs", t.get("stepsCpuMs")));
            return info;
        } catch (CallFailure f) {
            throw new ApiException(HttpStatus.NOT_FOUND, f.code(), f.getMessage());
        }
    }
}

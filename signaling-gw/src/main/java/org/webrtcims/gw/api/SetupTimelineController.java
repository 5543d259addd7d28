package org.webrtcims.gw.api;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.webrtcims.gw.metrics.SetupTimeline;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The gateway's per-call set-up timelines (metrics/SetupTimeline, issue #26) for the lab's bench and reports:
 * clients on this host only, like `/actuator/prometheus` and `/api/v1/rtpengine/sessions` (docs/security.md).
 */
@RestController
public class SetupTimelineController {
    private final SetupTimeline timeline;

    public SetupTimelineController(SetupTimeline timeline) { this.timeline = timeline; }

    /** `{owners: {step: owner}, calls: [...]}`: the kept timelines whose first mark is at or after `since` (epoch ms). */
    @GetMapping("/api/v1/setup-timelines")
    public Map<String, Object> timelines(@RequestParam(value = "since", defaultValue = "0") long since,
                                         jakarta.servlet.http.HttpServletRequest request) {
        if (!LabController.isThisHost(request.getRemoteAddr(), request.getLocalAddr())) {
            throw new ApiException(HttpStatus.FORBIDDEN, "loopback-only", "this endpoint answers clients on the gateway's host only");
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("owners", SetupTimeline.owners());
        out.put("calls", timeline.recent(since));
        return out;
    }
}

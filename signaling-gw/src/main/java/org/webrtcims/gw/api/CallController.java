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

    public CallController(SessionRegistry sessions, CallService calls) {
        this.sessions = sessions;
        this.calls = calls;
    }

    @GetMapping("/api/v1/calls/{callId}")
    public Map<String, Object> call(@RequestHeader(value = "Authorization", required = false) String auth,
                                    @PathVariable String callId) {
        BrowserSession s = Bearer.session(sessions, auth);
        try {
            return calls.info(s.token(), callId);
        } catch (CallFailure f) {
            throw new ApiException(HttpStatus.NOT_FOUND, f.code(), f.getMessage());
        }
    }
}

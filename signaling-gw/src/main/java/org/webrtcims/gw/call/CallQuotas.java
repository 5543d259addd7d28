package org.webrtcims.gw.call;

import java.util.regex.Pattern;

import org.springframework.stereotype.Component;
import org.webrtcims.gw.config.GatewayProperties;

/**
 * The call quotas (`lab.limits.*`), checked before rtpengine is asked for anything: live calls per browser
 * session and in total (rtpengine's port range is finite), m-lines and ICE candidates per SDP. Each refusal
 * is a {@link CallFailure} with its own code: `too-many-calls`, `gateway-busy`, `too-many-mlines`,
 * `too-many-candidates`.
 */
@Component
public class CallQuotas {
    /** A line break of an SDP, compiled once: String.split compiles its regex on every call (issue #26). */
    private static final Pattern EOL = Pattern.compile("\r?\n");

    private final CallRegistry registry;
    private final GatewayProperties.Limits limits;

    public CallQuotas(CallRegistry registry, GatewayProperties props) {
        this.registry = registry;
        this.limits = props.getLimits();
    }

    /** A new call of browser session `token` (MO or MT). */
    void newCall(String token) {
        long mine = registry.liveCountOfSession(token);
        if (mine >= limits.getCallsPerUser()) {
            throw new CallFailure("too-many-calls", "this session already has " + mine + " calls (lab.limits.calls-per-user="
                    + limits.getCallsPerUser() + ")");
        }
        long all = registry.liveCount();
        if (all >= limits.getCallsTotal()) {
            throw new CallFailure("gateway-busy", "the gateway carries its maximum of " + limits.getCallsTotal() + " calls");
        }
    }

    /** Any SDP the gateway is about to hand to rtpengine, from the browser or from IMS. */
    void sdp(String sdp) {
        if (sdp == null) return;
        int mlines = 0;
        int candidates = 0;
        for (String line : EOL.split(sdp)) {
            if (line.startsWith("m=")) mlines++;
            else if (line.startsWith("a=candidate:")) candidates++;
        }
        if (mlines > limits.getMlinesPerSdp()) {
            throw new CallFailure("too-many-mlines", "the SDP has " + mlines + " m-lines (lab.limits.mlines-per-sdp="
                    + limits.getMlinesPerSdp() + ")");
        }
        if (candidates > limits.getCandidatesPerSdp()) {
            throw new CallFailure("too-many-candidates", "the SDP has " + candidates + " candidates (lab.limits.candidates-per-sdp="
                    + limits.getCandidatesPerSdp() + ")");
        }
    }
}

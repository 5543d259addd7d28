package org.webrtcims.gw.call;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.config.GatewayProperties;

/**
 * The longest a call may last once answered (`lab.limits.max-call-ms`, default 4 h; 0 = no limit): then the
 * gateway hangs up (BYE toward IMS) and the browser gets {@code ended} with reason {@code max-duration}, so a
 * call whose both ends went silent without hanging up does not hold rtpengine ports for ever (issue #12).
 */
@Component
public class MaxCallLength {
    private static final Logger log = LoggerFactory.getLogger(MaxCallLength.class);
    static final String REASON = "max-duration";

    private final CallTeardown teardown;
    private final CallTimers timers;
    private final GatewayProperties props;

    public MaxCallLength(CallTeardown teardown, CallTimers timers, GatewayProperties props) {
        this.teardown = teardown;
        this.timers = timers;
        this.props = props;
    }

    /** Arms the limit for a call that has just been confirmed; the call's end cancels it ({@link Call#stopMaxLength}). */
    void start(Call c) {
        long max = props.getLimits().getMaxCallMs();
        if (max <= 0) return;
        c.armMaxLength(timers.after(max, () -> {
            if (c.ended()) return;
            log.info("call {}: {} ms since it was answered (lab.limits.max-call-ms); hanging up ({})", c.id, max, REASON);
            teardown.hangUp(c, REASON);
        }));
    }
}

package org.webrtcims.gw.call;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The longest a call may last once answered (`lab.limits.max-call-ms`, default 4 h; 0 = no limit): then the
 * gateway hangs up (BYE toward IMS) and the browser gets {@code ended} with reason {@code max-duration}, so a
 * call whose both ends went silent without hanging up does not hold rtpengine ports for ever (issue #12).
 */
final class MaxCallLength {
    private static final Logger log = LoggerFactory.getLogger(MaxCallLength.class);
    static final String REASON = "max-duration";

    private MaxCallLength() { }

    /** Arms the limit for a call that has just been confirmed; the call's end cancels it ({@link Call#stopMaxLength}). */
    static void start(CallContext ctx, Call c) {
        long max = ctx.props().getLimits().getMaxCallMs();
        if (max <= 0) return;
        c.armMaxLength(ctx.timers().after(max, () -> {
            if (c.ended()) return;
            log.info("call {}: {} ms since it was answered (lab.limits.max-call-ms); hanging up ({})", c.id, max, REASON);
            ctx.teardown().hangUp(c, REASON);
        }));
    }
}

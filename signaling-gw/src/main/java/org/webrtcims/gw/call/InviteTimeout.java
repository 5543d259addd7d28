package org.webrtcims.gw.call;

import org.springframework.stereotype.Component;
import org.webrtcims.gw.config.GatewayProperties;

import javax.sip.message.Response;

/**
 * MO: the longest the gateway waits for a final answer to its INVITE (`lab.ims.invite-timeout-ms`; provisionals stop
 * the transaction's Timer B, not this): then CANCEL, and the browser hears `ended` with 408 (reason `timeout`).
 */
@Component
public class InviteTimeout {
    private final CallTeardown teardown;
    private final CallTimers timers;
    private final long timeoutMs;

    public InviteTimeout(CallTeardown teardown, CallTimers timers, GatewayProperties props) {
        this.teardown = teardown;
        this.timers = timers;
        this.timeoutMs = props.getIms().getInviteTimeoutMs();
    }

    /** The INVITE of {@code c} went: give up on it after the timeout unless it has its final answer by then. */
    void start(Call c) {
        timers.after(timeoutMs, new GiveUp(c));
    }

    /**
     * The timer's task: a class, not a lambda, as it is made under the call's lock right after the INVITE (a lambda
     * site links at a fresh gateway's first call: docs/architecture.md "Starting the gateway").
     */
    private final class GiveUp implements Runnable {
        private final Call c;

        GiveUp(Call c) { this.c = c; }

        @Override
        public void run() { giveUp(c); }
    }

    private void giveUp(Call c) {
        synchronized (c) {
            if (!c.outgoingEarly()) return;
            c.finalStatus(Response.REQUEST_TIMEOUT);
            teardown.hangUp(c, "timeout");
        }
    }
}

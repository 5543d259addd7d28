package org.webrtcims.gw.call;

import jakarta.annotation.PreDestroy;
import org.springframework.stereotype.Component;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The call layer's one timer thread (INVITE give-up, local-media polling, the maximum call length). A cancelled
 * task leaves the queue at once (remove-on-cancel): otherwise each ended call's 4-hour max-call-length task kept
 * the call, its dialog and its transactions in the heap for 4 hours (found by `./lab soak`, docs/soak.md).
 */
@Component
public class CallTimers {
    private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "call-timers");
        t.setDaemon(true);
        return t;
    });

    public CallTimers() {
        timer.setRemoveOnCancelPolicy(true);
    }

    /** Tasks waiting in the queue (tests: ended calls leave none behind). */
    int pending() { return timer.getQueue().size(); }

    ScheduledFuture<?> after(long ms, Runnable task) { return timer.schedule(task, ms, TimeUnit.MILLISECONDS); }

    ScheduledFuture<?> every(long ms, Runnable task) { return timer.scheduleWithFixedDelay(task, ms, ms, TimeUnit.MILLISECONDS); }

    @PreDestroy
    void stop() { timer.shutdownNow(); }
}

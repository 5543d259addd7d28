package org.webrtcims.gw.call;

import jakarta.annotation.PreDestroy;
import org.springframework.stereotype.Component;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** The call layer's one timer thread (INVITE give-up, local-media polling). */
@Component
public class CallTimers {
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "call-timers");
        t.setDaemon(true);
        return t;
    });

    ScheduledFuture<?> after(long ms, Runnable task) { return timer.schedule(task, ms, TimeUnit.MILLISECONDS); }

    ScheduledFuture<?> every(long ms, Runnable task) { return timer.scheduleWithFixedDelay(task, ms, ms, TimeUnit.MILLISECONDS); }

    @PreDestroy
    void stop() { timer.shutdownNow(); }
}

package org.webrtcims.gw.call;

import org.springframework.stereotype.Component;

import javax.sip.message.Response;

/**
 * What starts when a call is confirmed (MO: the 2xx from IMS, MT: the ACK of the gateway's 200): the call moves to
 * CONFIRMED with its set-up time, then the media-start watch ({@link MediaStartWatch}), the maximum-length timer
 * ({@link MaxCallLength}) and the session timer ({@link SessionTimers}, RFC 4028); on an MO call the timers start
 * after the answer went to the browser ({@link #moTimers}). The caller holds the call's lock.
 */
@Component
public class ConfirmedCalls {
    private final MediaStartWatch mediaStart;
    private final MaxCallLength maxLength;
    private final SessionTimers sessionTimers;
    private volatile DialogStore dialogs; // lab.failover.redis only (docs/scale-out.md)

    public ConfirmedCalls(MediaStartWatch mediaStart, MaxCallLength maxLength, SessionTimers sessionTimers) {
        this.mediaStart = mediaStart;
        this.maxLength = maxLength;
        this.sessionTimers = sessionTimers;
    }

    @org.springframework.beans.factory.annotation.Autowired(required = false)
    void setDialogStore(DialogStore dialogs) { this.dialogs = dialogs; }

    /**
     * MO: the 2xx to the gateway's INVITE confirmed the call: CONFIRMED with its set-up time. Its timers start with
     * {@link #moTimers} once the answer went to the browser.
     */
    void mo(Call c) {
        confirm(c);
    }

    /**
     * MO, after the answer went to the browser: the media-start watch, the maximum length and the session timer (its
     * interval from {@code ok}). None is a step of the set-up (issue #26): run before the `answered` frame, they took
     * about 10 of the gateway's 15.5 ms from ng answer to browser on a fresh gateway's first call (one JFR recording,
     * docs/benchmarks.md "Session 18").
     */
    void moTimers(Call c, Response ok) {
        timers(c);
        sessionTimers.moConfirmed(c, ok);
    }

    /** MT: the ACK of the gateway's 200 confirmed the call; the session timer takes the interval the INVITE agreed. */
    void mt(Call c) {
        confirmed(c);
        sessionTimers.mtConfirmed(c);
    }

    private void confirmed(Call c) {
        confirm(c);
        timers(c);
    }

    /** CONFIRMED, with the call's set-up time. */
    private static void confirm(Call c) {
        c.transition(CallState.CONFIRMED);
        c.markSetupDone();
    }

    private void timers(Call c) {
        mediaStart.start(c);
        maxLength.start(c);
        DialogStore d = dialogs;
        if (d != null) d.confirmed(c.id, c.owner, c.localUser, c.dialog().sip());
    }
}

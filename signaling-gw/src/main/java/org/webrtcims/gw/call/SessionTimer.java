package org.webrtcims.gw.call;

import javax.sip.header.Header;
import javax.sip.header.HeaderFactory;
import javax.sip.message.Message;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.text.ParseException;
import java.util.ListIterator;
import java.util.concurrent.ScheduledFuture;

/**
 * RFC 4028 session timers. The negotiation (static, pure): what the gateway answers as UAS (§9), what it takes from a 2xx as
 * UAC (§7.2), and when it refreshes or gives up (§10); an instance is one call's timer (interval, what the
 * peer supports, the pending tasks). {@link SessionTimers} applies it to calls.
 */
final class SessionTimer {
    /** The RFC's floor for Min-SE (§4): a 422 may never ask for less. */
    static final int RFC_MIN_SE = 90;
    /** 422 Session Interval Too Small (§6). */
    static final int SESSION_INTERVAL_TOO_SMALL = 422;

    // ---- one call's session timer (SessionTimers applies it; guarded by the call's monitor) ----

    /** The negotiated interval (null = no session timer). */
    private Interval interval;
    /** MO: the Session-Expires the INVITE asks for (0 = not yet set; after a 422, the interval it asked). */
    private int askedSe;
    private boolean retried422;
    /** The IMS party said Supported/Require: timer; it allows UPDATE (the gateway then refreshes by UPDATE). */
    private boolean peerSupports;
    private boolean peerAllowsUpdate;
    /** Bumped on every (re)start: a refresh or expiry task of an older interval does nothing. */
    private long generation;
    /** The pending expiry and refresh tasks, cancelled on re-arm and at the end. */
    private volatile ScheduledFuture<?> expiry, refresh;

    /** A call's session timer, none negotiated yet. */
    SessionTimer() { }

    Interval interval() { return interval; }
    int askedSe() { return askedSe; }
    boolean retried422() { return retried422; }
    boolean peerSupports() { return peerSupports; }
    boolean peerAllowsUpdate() { return peerAllowsUpdate; }

    /** MO: the interval the INVITE asks for: {@code localSe} the first time, then what it asked (after a 422, more). */
    int ask(int localSe) {
        if (askedSe == 0) askedSe = localSe;
        return askedSe;
    }

    /** MO: a 422 to the INVITE (§7.4): the interval to ask for in a new INVITE; null when there is none (no Min-SE, a second 422). */
    Integer retryAfter422(Offer resp) {
        if (retried422) return null;
        Integer next = retryAfter422(resp, askedSe);
        if (next == null) return null;
        retried422 = true;
        askedSe = next;
        return next;
    }

    /** What the IMS party said of timers (Supported/Require: timer). */
    void peerSupports(boolean supports) { peerSupports = supports; }

    /** Whether the IMS party allows UPDATE (its Allow): the refresh is an UPDATE then, else a re-INVITE. */
    void peerAllowsUpdate(boolean allows) { peerAllowsUpdate = allows; }

    /** MT: the interval agreed in the INVITE, kept for the 200; it starts with the ACK. */
    void agreed(Interval i) { interval = i; }

    /** A 422 to the gateway's refresh: the next refresh asks for {@code seconds}, the gateway refreshing. */
    void raise(int seconds) { interval = new Interval(seconds, true); }

    /**
     * (Re)arms the timer for {@code i} (null: none): the previous interval's tasks are cancelled (a queued task holds
     * the call until it runs). Returns the new generation, which the caller's tasks carry.
     */
    long rearm(Interval i) {
        interval = i;
        long gen = ++generation;
        cancel();
        return gen;
    }

    /** Whether {@code gen} is the current generation (a task of an older interval does nothing). */
    boolean current(long gen) { return generation == gen; }

    /** The tasks of the current generation: its expiry and (when the gateway refreshes) its refresh. */
    void scheduled(ScheduledFuture<?> expiryTask, ScheduledFuture<?> refreshTask) {
        expiry = expiryTask;
        refresh = refreshTask;
    }

    /** A refresh put off (a mid-call offer is under way) or retried. */
    void refreshScheduled(ScheduledFuture<?> refreshTask) { refresh = refreshTask; }

    /**
     * The session timer headers of a 2xx the gateway sends to an INVITE, or to an UPDATE in a confirmed call
     * ({@code confirmed}): Supported: timer always; with a session timer, Session-Expires with the refresher and,
     * when the peer supports timers, Require: timer (§9).
     */
    void responseHeaders(Request req, Response r, boolean confirmed, HeaderFactory h) throws ParseException {
        int code = r.getStatusCode();
        if (code < 200 || code >= 300) return;
        boolean invite = Request.INVITE.equals(req.getMethod());
        if (!invite && !(Request.UPDATE.equals(req.getMethod()) && confirmed)) return;
        r.addHeader(h.createSupportedHeader("timer"));
        if (interval == null) return;
        r.setHeader(h.createHeader("Session-Expires", interval.asUasHeader()));
        if (peerSupports) r.addHeader(h.createRequireHeader("timer"));
    }

    /** Cancels the pending refresh and expiry (re-arm, and the call's end). */
    void cancel() {
        ScheduledFuture<?> e = expiry, r = refresh;
        expiry = null;
        refresh = null;
        if (e != null) e.cancel(false);
        if (r != null) r.cancel(false);
    }

    /** A negotiated session interval (seconds) and whether the gateway is the refresher. */
    record Interval(int seconds, boolean gatewayRefreshes) {
        /** When the refresher sends its refresh: half the interval (§10). */
        long refreshDelayMs() { return seconds * 1000L / 2; }

        /** When the other side gives up on a missing refresh: the interval less min(32 s, a third of it) (§10). */
        long expiryDelayMs() {
            long ms = seconds * 1000L;
            return ms - Math.min(32_000L, ms / 3);
        }

        /** The Session-Expires value the gateway puts in a 2xx it sends as UAS of the transaction. */
        String asUasHeader() { return seconds + ";refresher=" + (gatewayRefreshes ? "uas" : "uac"); }
    }

    /** The session timer headers of a request or response: Session-Expires (null = none), refresher, Min-SE, timer support. */
    record Offer(Integer sessionExpires, String refresher, Integer minSe, boolean supportsTimer) {
        static Offer of(Message m) {
            String se = value(m, "Session-Expires", "x");
            Integer seconds = null;
            String refresher = null;
            if (se != null) {
                String[] parts = se.split(";");
                seconds = parseSeconds(parts[0]);
                for (int i = 1; i < parts.length; i++) {
                    String[] kv = parts[i].split("=", 2);
                    if (kv.length == 2 && kv[0].trim().equalsIgnoreCase("refresher")) refresher = kv[1].trim().toLowerCase();
                }
            }
            String min = value(m, "Min-SE", null);
            Integer minSe = min == null ? null : parseSeconds(min.split(";")[0]);
            return new Offer(seconds, refresher, minSe, org.webrtcims.gw.sip.SipHeaders.supportsOrRequires(m, "timer"));
        }
    }

    /** The UAS outcome: a 422 asking for {@code minSe}, no session timer ({@code interval} null), or an interval. */
    record UasDecision(Integer reject422MinSe, Interval interval) { }

    /**
     * The gateway as UAS of an INVITE or UPDATE (§9). localSe: the interval the gateway wants (0 = none of its own);
     * localMinSe: the smallest it accepts. A request whose Session-Expires is under localMinSe gets 422 when its
     * UAC supports timers; else (a proxy added the header) the interval is raised and the gateway refreshes.
     */
    static UasDecision asUas(Offer req, int localSe, int localMinSe) {
        if (req.sessionExpires() == null) {
            if (localSe <= 0) return new UasDecision(null, null);
            int seconds = Math.max(Math.max(localSe, localMinSe), req.minSe() == null ? 0 : req.minSe());
            // the UAC that supports timers refreshes; one that does not cannot, so the gateway does (§9)
            return new UasDecision(null, new Interval(seconds, !req.supportsTimer()));
        }
        int seconds = req.sessionExpires();
        if (seconds < localMinSe) {
            if (req.supportsTimer()) return new UasDecision(localMinSe, null);
            seconds = localMinSe;
        }
        boolean uacRefreshes = req.supportsTimer() && !"uas".equals(req.refresher());
        return new UasDecision(null, new Interval(seconds, !uacRefreshes));
    }

    /**
     * The gateway as UAC, from the 2xx to its INVITE or UPDATE (§7.2): the response's Session-Expires and refresher;
     * without one, the interval it asked for (requestedSe, 0 = none) with itself as the refresher.
     */
    static Interval asUac(Offer resp, int requestedSe) {
        if (resp.sessionExpires() == null) return requestedSe > 0 ? new Interval(requestedSe, true) : null;
        return new Interval(resp.sessionExpires(), !"uas".equals(resp.refresher()));
    }

    /** The interval to retry with after a 422 (§7.4): the response's Min-SE, at least what was asked; null = none given. */
    static Integer retryAfter422(Offer resp, int askedSe) {
        if (resp.minSe() == null) return null;
        return Math.max(resp.minSe(), askedSe);
    }

    private static Integer parseSeconds(String s) {
        try {
            long v = Long.parseLong(s.trim());
            return v < 0 || v > Integer.MAX_VALUE ? null : (int) v;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** A header's value (the text after "Name:"), by its name or compact form; null when absent. */
    private static String value(Message m, String name, String compact) {
        Header h = first(m, name);
        if (h == null && compact != null) h = first(m, compact);
        if (h == null) return null;
        String s = h.toString().trim();
        int colon = s.indexOf(':');
        return colon < 0 ? null : s.substring(colon + 1).trim();
    }

    private static Header first(Message m, String name) {
        ListIterator<?> it = m.getHeaders(name);
        return it != null && it.hasNext() ? (Header) it.next() : null;
    }
}

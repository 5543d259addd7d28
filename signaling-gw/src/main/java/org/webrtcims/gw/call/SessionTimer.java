package org.webrtcims.gw.call;

import javax.sip.header.Header;
import javax.sip.message.Message;
import java.util.ListIterator;

/**
 * RFC 4028 session timer negotiation, pure: what the gateway answers as UAS (§9), what it takes from a 2xx as
 * UAC (§7.2), and when it refreshes or gives up (§10). {@link SessionTimers} applies it to calls.
 */
final class SessionTimer {
    /** The RFC's floor for Min-SE (§4): a 422 may never ask for less. */
    static final int RFC_MIN_SE = 90;

    private SessionTimer() { }

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

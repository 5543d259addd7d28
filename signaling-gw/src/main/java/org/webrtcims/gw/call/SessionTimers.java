package org.webrtcims.gw.call;

import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.sip.SipReplies;
import org.webrtcims.gw.sip.SipRequests;
import org.webrtcims.gw.sip.SipUserAgent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.sdp.MediaChange;
import org.webrtcims.gw.sip.SipHeaders;

import javax.sip.ResponseEvent;
import javax.sip.ServerTransaction;
import javax.sip.message.Message;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.text.ParseException;

/**
 * RFC 4028 session timers on the IMS leg (docs/call-flows.md "Session timers"). The gateway's INVITEs and 2xx
 * say `Supported: timer`; its INVITEs ask for `lab.ims.session-expires` (default 1800 s, 0 = none of its own)
 * with `Min-SE: lab.ims.min-se` (default 90 s); the interval and refresher are negotiated as {@link SessionTimer}
 * says. The refresher sends UPDATE without SDP when the peer allows UPDATE, else a re-INVITE with the SDP it last
 * gave (unchanged, same o= version): the browser sees nothing (rtpengine keeps its ports; a changed IMS answer
 * only updates rtpengine). A session not refreshed in time ends: BYE toward IMS, `ended` with reason
 * {@code session-expired} to the browser.
 */
@Component
public class SessionTimers implements DialogExtension {
    private static final Logger log = LoggerFactory.getLogger(SessionTimers.class);
    static final String EXPIRED = "session-expired";
    static final int SESSION_INTERVAL_TOO_SMALL = SessionTimer.SESSION_INTERVAL_TOO_SMALL;

    private final SipUserAgent ua;
    private final SipRequests requests;
    private final SipReplies sipReplies;
    private final CallTeardown teardown;
    private final CallEventSink sink;
    private final CallTimers timers;
    private final GatewayProperties props;

    public SessionTimers(SipUserAgent ua, SipRequests requests, SipReplies sipReplies,
                         CallTeardown teardown, CallEventSink sink, CallTimers timers, GatewayProperties props) {
        this.ua = ua;
        this.requests = requests;
        this.sipReplies = sipReplies;
        this.teardown = teardown;
        this.sink = sink;
        this.timers = timers;
        this.props = props;
    }

    private int localSe() { return props.getIms().getSessionExpires(); }

    private int localMinSe() { return props.getIms().getMinSe(); }

    /** MO: the INVITE's Supported: timer, Session-Expires (what the call asks, 0 = none) and Min-SE. */
    @Override
    public void initialInvite(Call c, Request invite) throws ParseException {
        SessionTimer t = c.timer();
        int asked = t.ask(localSe());
        invite.addHeader(ua.headers().createSupportedHeader("timer"));
        if (asked > 0) invite.setHeader(ua.headers().createHeader("Session-Expires", String.valueOf(asked)));
        // after a 422, Min-SE is the interval it asked for (§7.4)
        invite.setHeader(ua.headers().createHeader("Min-SE", String.valueOf(t.retried422() ? asked : localMinSe())));
    }

    /**
     * MO: a 422 to the INVITE (§7.4). Returns the interval to ask for in a new INVITE, or null when there is none
     * to retry with (no Min-SE, or a second 422).
     */
    Integer retryInterval(Call c, Response r) {
        return c.timer().retryAfter422(SessionTimer.Offer.of(r));
    }

    /** A 422 to the gateway's INVITE: true when it names an interval to ask for again ({@link #retryInterval}). */
    @Override
    public boolean retryInvite(Call c, Response failure) {
        return failure.getStatusCode() == SessionTimer.SESSION_INTERVAL_TOO_SMALL && retryInterval(c, failure) != null;
    }

    /** MO: the 2xx to the INVITE: the negotiated interval starts (§7.2). */
    void moConfirmed(Call c, Response ok) {
        c.timer().peerSupports(SessionTimer.Offer.of(ok).supportsTimer());
        c.timer().peerAllowsUpdate(allows(ok, Request.UPDATE));
        start(c, SessionTimer.asUac(SessionTimer.Offer.of(ok), c.timer().askedSe()));
    }

    /** MT: the INVITE's session timer (§9): a Min-SE for a 422, or the interval (null = none). */
    private SessionTimer.UasDecision mtDecision(Request invite) {
        return SessionTimer.asUas(SessionTimer.Offer.of(invite), localSe(), localMinSe());
    }

    /** MT: an INVITE whose interval is under the gateway's Min-SE gets 422 before a call exists (§9). */
    @Override
    public boolean refusesInvite(ServerTransaction st) {
        Integer minSe = mtDecision(st.getRequest()).reject422MinSe();
        if (minSe == null) return false;
        reject422(null, st, minSe);
        return true;
    }

    /**
     * MT: the call goes on with the interval the INVITE asked for (a 422 went before the call existed): kept
     * for the 200, it starts with the ACK.
     */
    @Override
    public void invited(Call c, Request invite, String offer) {
        c.timer().peerSupports(SipHeaders.supportsOrRequires(invite, "timer"));
        c.timer().peerAllowsUpdate(allows(invite, Request.UPDATE));
        c.timer().agreed(mtDecision(invite).interval());
    }

    /** MT: the ACK of our 200 confirmed the call: the interval agreed in the INVITE starts. */
    void mtConfirmed(Call c) { start(c, c.timer().interval()); }

    /**
     * A re-INVITE or UPDATE from IMS in a confirmed call (the peer's refresh, or an offer: either refreshes the
     * session, §10). Sends 422 and returns false when its interval is too small; else takes the new interval
     * (the 2xx carries it, {@link #responseHeaders}) and restarts the watch.
     */
    @Override
    public boolean request(ServerTransaction st, Call c, String offer) {
        String method = st.getRequest().getMethod();
        if (!Request.INVITE.equals(method) && !Request.UPDATE.equals(method)) return false;
        return !inDialogRequest(st, c); // answered (422); else a refresh, passed on
    }

    boolean inDialogRequest(ServerTransaction st, Call c) {
        if (c.state() != CallState.CONFIRMED) return true;
        Request req = st.getRequest();
        SessionTimer.UasDecision d = SessionTimer.asUas(SessionTimer.Offer.of(req), localSe(), localMinSe());
        if (d.reject422MinSe() != null) {
            reject422(c, st, d.reject422MinSe());
            return false;
        }
        c.timer().peerSupports(SipHeaders.supportsOrRequires(req, "timer"));
        if (req.getHeader("Allow") != null) c.timer().peerAllowsUpdate(allows(req, Request.UPDATE));
        start(c, d.interval());
        return true;
    }

    /** 422 with the gateway's Min-SE (§9); recorded in the call's flow when the call exists. */
    void reject422(Call c, ServerTransaction st, int minSe) {
        try {
            Response r = sipReplies.build(st.getRequest(), SESSION_INTERVAL_TOO_SMALL,
                    st.getRequest().getHeader("To") instanceof javax.sip.header.ToHeader to && to.getTag() == null
                            ? org.webrtcims.gw.sip.SipUserAgent.newTag() : null, null, null);
            r.setReasonPhrase("Session Interval Too Small");
            r.setHeader(ua.headers().createHeader("Min-SE", String.valueOf(minSe)));
            st.sendResponse(r);
            if (c != null) c.flow(String.valueOf(SESSION_INTERVAL_TOO_SMALL));
        } catch (Exception e) {
            log.warn("422 to {} not sent: {}", st.getRequest().getMethod(), e.toString());
        }
    }

    /** (Re)arms the call's refresh and expiry for {@code i} (null: no session timer); the caller holds the lock. */
    void start(Call c, SessionTimer.Interval i) {
        long gen = c.timer().rearm(i); // the previous interval's tasks leave the queue (a queued task holds the call until it runs)
        if (i == null || c.ended()) return;
        log.debug("call {}: session interval {} s, refresher {}", c.id, i.seconds(), i.gatewayRefreshes() ? "gateway" : "peer");
        c.timer().scheduled(timers.after(i.expiryDelayMs(), () -> expire(c, gen)),
                i.gatewayRefreshes() ? timers.after(i.refreshDelayMs(), () -> refresh(c, gen)) : null);
    }

    private void expire(Call c, long gen) {
        synchronized (c) {
            if (c.ended() || !c.timer().current(gen)) return;
            log.info("call {}: session not refreshed within {} s (RFC 4028); hanging up ({})", c.id, c.timer().interval().seconds(), EXPIRED);
            teardown.hangUp(c, EXPIRED);
        }
    }

    /** The gateway's refresh: UPDATE without SDP when the peer allows it, else a re-INVITE with our last SDP. */
    private void refresh(Call c, long gen) {
        synchronized (c) {
            if (c.ended() || !c.timer().current(gen) || c.state() != CallState.CONFIRMED) return;
            if (c.reofferPending()) { // a mid-call offer is under way: try again shortly (it refreshes too when it succeeds)
                c.timer().refreshScheduled(timers.after(1000, () -> refresh(c, gen)));
                return;
            }
            String method = c.timer().peerAllowsUpdate() ? Request.UPDATE : Request.INVITE;
            int seconds = c.timer().interval().seconds();
            try {
                Request req = c.dialog().request(method);
                req.setHeader(requests.contact(c.dialog().contactUser())); // replaces the bare Contact the stack put in
                req.addHeader(ua.headers().createSupportedHeader("timer"));
                req.setHeader(ua.headers().createHeader("Session-Expires", seconds + ";refresher=uac"));
                req.setHeader(ua.headers().createHeader("Min-SE", String.valueOf(Math.min(localMinSe(), seconds))));
                if (method.equals(Request.INVITE)) {
                    requests.setSdpBody(req, c.media().lastSdpToIms());
                    c.reofferStarted();
                }
                c.flow(method);
                c.dialog().send(req, new RefreshResponses(c, method, seconds, gen));
            } catch (Exception e) {
                c.reofferDone();
                log.warn("session refresh ({}) for {} not sent: {}", method, c.id, e.toString());
            }
        }
    }

    static boolean allows(Message m, String method) {
        for (String t : org.webrtcims.gw.sip.SipHeaders.tokens(m, "Allow")) if (t.equalsIgnoreCase(method)) return true;
        return false;
    }

    private final class RefreshResponses extends CallResponses {
        private final String method;
        private final int askedSe;
        private final long gen;

        RefreshResponses(Call c, String method, int askedSe, long gen) {
            super(c, sink);
            this.method = method;
            this.askedSe = askedSe;
            this.gen = gen;
        }

        @Override
        void response(ResponseEvent event, Response r, int code) {
            if (code < 200) return;
            boolean invite = Request.INVITE.equals(method);
            if (invite) c.reofferDone();
            if (code < 300) {
                if (invite) {
                    c.ack(r, "the session refresh");
                    String answer = SipHeaders.sdp(r);
                    // the IMS party changed its media in the answer: rtpengine follows; the browser's side is unchanged
                    if (!c.ended() && answer != null && MediaChange.changes(c.media().imsRemoteSdp(), answer)) {
                        try {
                            c.media().bridgeImsReanswer(answer);
                        } catch (CallFailure f) {
                            log.warn("call {}: the refresh's SDP answer not taken by rtpengine: {}", c.id, f.getMessage());
                        }
                    }
                }
                if (!c.ended() && c.timer().current(gen)) {
                    c.timer().peerSupports(SessionTimer.Offer.of(r).supportsTimer());
                    start(c, SessionTimer.asUac(SessionTimer.Offer.of(r), askedSe));
                }
                return;
            }
            if (c.ended()) return;
            if (code == SESSION_INTERVAL_TOO_SMALL) { // §7.4: again at once, with the interval it asks for
                Integer next = SessionTimer.retryAfter422(SessionTimer.Offer.of(r), askedSe);
                if (next != null && c.timer().current(gen)) {
                    c.timer().raise(next);
                    timers.after(0, () -> refresh(c, gen));
                }
                return;
            }
            if (code == Response.CALL_OR_TRANSACTION_DOES_NOT_EXIST || code == Response.REQUEST_TIMEOUT) {
                teardown.hangUp(c, EXPIRED); // RFC 5057: the dialog is gone
                return;
            }
            if (!invite && (code == Response.METHOD_NOT_ALLOWED || code == Response.NOT_IMPLEMENTED)) {
                c.timer().peerAllowsUpdate(false); // UPDATE refused: refresh by re-INVITE, now
                if (c.timer().current(gen)) timers.after(0, () -> refresh(c, gen));
            }
            // other failures (491, 5xx): the expiry watch still runs; the session ends if no refresh succeeds
        }

        @Override
        void timeout() {
            if (Request.INVITE.equals(method)) c.reofferDone();
            teardown.hangUp(c, EXPIRED);
        }
    }
}

package org.webrtcims.gw.call;

import org.junit.jupiter.api.Test;
import org.webrtcims.gw.sip.SipFixtures;

import javax.sip.message.Request;
import javax.sip.message.Response;

import static org.junit.jupiter.api.Assertions.*;

/** RFC 4028 negotiation: the gateway as UAS (§9) and as UAC (§7.2, §7.4), and the refresh/expiry times (§10). */
class SessionTimerTest {
    private static Request invite(String... headers) throws Exception {
        Request r = SipFixtures.request(Request.INVITE, "alice", "c1", "t1", null, 1, null);
        for (int i = 0; i < headers.length; i += 2) r.addHeader(SipFixtures.HEADERS.createHeader(headers[i], headers[i + 1]));
        return r;
    }

    private static SessionTimer.UasDecision uas(Request r) {
        return SessionTimer.asUas(SessionTimer.Offer.of(r), 1800, 90);
    }

    @Test
    void readsSessionExpiresRefresherAndMinSe() throws Exception {
        SessionTimer.Offer o = SessionTimer.Offer.of(invite("Supported", "100rel", "Supported", "timer", "Session-Expires", "600;refresher=UAS", "Min-SE", "120"));
        assertEquals(new SessionTimer.Offer(600, "uas", 120, true), o);
        assertEquals(new SessionTimer.Offer(null, null, null, false), SessionTimer.Offer.of(invite()));
    }

    @Test
    void uasKeepsTheRequestedIntervalAndLetsATimerCapableUacRefresh() throws Exception {
        assertEquals(new SessionTimer.Interval(600, false), uas(invite("Supported", "timer", "Session-Expires", "600")).interval());
        assertEquals(new SessionTimer.Interval(600, true),
                uas(invite("Supported", "timer", "Session-Expires", "600;refresher=uas")).interval());
    }

    @Test
    void uasRejectsTooSmallWith422OnlyWhenTheUacSupportsTimers() throws Exception {
        assertEquals(90, uas(invite("Supported", "timer", "Session-Expires", "30")).reject422MinSe());
        // a proxy added Session-Expires for a UAC without timer support: raised to Min-SE, the gateway refreshes
        SessionTimer.UasDecision d = uas(invite("Session-Expires", "30"));
        assertNull(d.reject422MinSe());
        assertEquals(new SessionTimer.Interval(90, true), d.interval());
    }

    @Test
    void uasAddsItsOwnIntervalWhenTheRequestHasNone() throws Exception {
        assertEquals(new SessionTimer.Interval(1800, false), uas(invite("Supported", "timer")).interval());
        assertEquals(new SessionTimer.Interval(1800, true), uas(invite()).interval(), "a UAC without timer support cannot refresh");
        assertEquals(new SessionTimer.Interval(3600, false), uas(invite("Supported", "timer", "Min-SE", "3600")).interval());
        assertNull(SessionTimer.asUas(SessionTimer.Offer.of(invite()), 0, 90).interval(), "session-expires 0: none of its own");
    }

    private static Response ok(String... headers) throws Exception {
        Response r = SipFixtures.MESSAGES.createResponse(200, invite());
        for (int i = 0; i < headers.length; i += 2) r.addHeader(SipFixtures.HEADERS.createHeader(headers[i], headers[i + 1]));
        return r;
    }

    @Test
    void uacFollowsTheRefresherOfThe2xxOrRefreshesItselfWithout() throws Exception {
        assertEquals(new SessionTimer.Interval(4, true), SessionTimer.asUac(SessionTimer.Offer.of(ok("Session-Expires", "4;refresher=uac")), 1800));
        assertEquals(new SessionTimer.Interval(4, false), SessionTimer.asUac(SessionTimer.Offer.of(ok("Session-Expires", "4;refresher=uas")), 1800));
        assertEquals(new SessionTimer.Interval(1800, true), SessionTimer.asUac(SessionTimer.Offer.of(ok()), 1800), "UAS without timers");
        assertNull(SessionTimer.asUac(SessionTimer.Offer.of(ok()), 0));
    }

    @Test
    void after422TheUacAsksForTheMinSeOfTheResponse() throws Exception {
        Response r = SipFixtures.MESSAGES.createResponse(422, invite());
        assertNull(SessionTimer.retryAfter422(SessionTimer.Offer.of(r), 1800), "a 422 without Min-SE: nothing to retry with");
        r.addHeader(SipFixtures.HEADERS.createHeader("Min-SE", "3600"));
        assertEquals(3600, SessionTimer.retryAfter422(SessionTimer.Offer.of(r), 1800));
    }

    @Test
    void refreshAtHalfTheIntervalExpiryLessMin32sOrAThird() {
        assertEquals(900_000, new SessionTimer.Interval(1800, true).refreshDelayMs());
        assertEquals(1_768_000, new SessionTimer.Interval(1800, false).expiryDelayMs());
        assertEquals(4000 - 1333, new SessionTimer.Interval(4, false).expiryDelayMs());
        assertEquals("4;refresher=uac", new SessionTimer.Interval(4, false).asUasHeader());
        assertEquals("90;refresher=uas", new SessionTimer.Interval(90, true).asUasHeader());
    }

    // ---- one call's timer ----

    @Test
    void aCallsTimerAsksItsIntervalOnceAndRetriesA422Once() throws Exception {
        SessionTimer t = new SessionTimer();
        assertEquals(1800, t.ask(1800));
        assertEquals(1800, t.ask(600), "what the call asked stays (a second INVITE asks the same)");
        Response r = SipFixtures.MESSAGES.createResponse(422, invite());
        r.addHeader(SipFixtures.HEADERS.createHeader("Min-SE", "3600"));
        assertEquals(3600, t.retryAfter422(SessionTimer.Offer.of(r)));
        assertTrue(t.retried422());
        assertEquals(3600, t.askedSe(), "the retry asks for the 422's Min-SE");
        assertNull(t.retryAfter422(SessionTimer.Offer.of(r)), "a second 422 ends the call");
    }

    @Test
    void rearmingBumpsTheGenerationAndCancelsTheEarlierTasks() {
        SessionTimer t = new SessionTimer();
        java.util.concurrent.ScheduledFuture<?> expiry = org.mockito.Mockito.mock(java.util.concurrent.ScheduledFuture.class);
        java.util.concurrent.ScheduledFuture<?> refresh = org.mockito.Mockito.mock(java.util.concurrent.ScheduledFuture.class);
        long first = t.rearm(new SessionTimer.Interval(90, true));
        t.scheduled(expiry, refresh);
        assertTrue(t.current(first));
        long second = t.rearm(new SessionTimer.Interval(120, false));
        assertFalse(t.current(first), "a task of the earlier interval does nothing");
        assertTrue(t.current(second));
        org.mockito.Mockito.verify(expiry).cancel(false);
        org.mockito.Mockito.verify(refresh).cancel(false);
        assertEquals(120, t.interval().seconds());
        t.raise(180);
        assertEquals(new SessionTimer.Interval(180, true), t.interval(), "after a 422 to our refresh, the gateway refreshes");
    }

    @Test
    void whatThePeerSaidOfTimersAndUpdateIsKept() {
        SessionTimer t = new SessionTimer();
        assertFalse(t.peerSupports());
        assertFalse(t.peerAllowsUpdate());
        t.peerSupports(true);
        t.peerAllowsUpdate(true);
        assertTrue(t.peerSupports() && t.peerAllowsUpdate());
        t.agreed(new SessionTimer.Interval(90, false));
        assertEquals(90, t.interval().seconds(), "MT: kept for the 200, started by the ACK");
    }
}

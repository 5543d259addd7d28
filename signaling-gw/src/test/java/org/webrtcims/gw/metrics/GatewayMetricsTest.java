package org.webrtcims.gw.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

/** The meters' names, tags and the Prometheus text they scrape as. */
class GatewayMetricsTest {
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    GatewayMetrics metrics = new GatewayMetrics(prometheus);
    MeterRegistry r = metrics.registry();

    private double count(String name, String... tags) {
        var c = r.find(name).tags(tags).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void aFailedCallCountsAsAttemptEndAndFailureByReason() {
        metrics.callAttempt("mo");
        metrics.callEnded("mo", "busy here", 486, false);
        metrics.callEnded("mo", "local-hangup", null, false);
        assertEquals(1, count("gw.call.attempts", "direction", "mo"));
        assertEquals(1, count("gw.call.failures", "direction", "mo", "reason", "sip-486"));
        assertEquals(1, count("gw.call.failures", "direction", "mo", "reason", "local-hangup"));
        assertEquals(2, r.find("gw.calls.ended").counters().stream().mapToDouble(c -> c.count()).sum());
    }

    @Test
    void anAnsweredCallIsNoFailureAndFillsTheSetupHistogram() {
        metrics.callAnswered("mt", TimeUnit.MILLISECONDS.toNanos(150));
        metrics.callEnded("mt", "remote-hangup", 200, true);
        assertEquals(1, count("gw.call.answers", "direction", "mt"));
        assertEquals(0, count("gw.call.failures", "direction", "mt", "reason", "remote-hangup"));
        Timer t = r.find("gw.call.setup").tag("direction", "mt").timer();
        assertEquals(1, t.count());
        assertEquals(150, t.totalTime(TimeUnit.MILLISECONDS), 1);
        String text = prometheus.scrape();
        assertTrue(text.contains("gw_call_setup_seconds_bucket{direction=\"mt\",le=\"0.2\"} 1"), text);
        assertTrue(text.contains("gw_call_setup_seconds_bucket{direction=\"mt\",le=\"0.1\"} 0"), text);
        assertTrue(text.contains("gw_calls_ended_total{direction=\"mt\",reason=\"remote-hangup\"} 1"), text);
    }

    @Test
    void reasonTagsStayBounded() {
        assertEquals("media-timeout", GatewayMetrics.reasonTag("media-timeout", null));
        assertEquals("sip-503", GatewayMetrics.reasonTag("anything the far end wrote", 503));
        assertEquals("other", GatewayMetrics.reasonTag(null, null));
    }

    @Test
    void gaugesReadTheirSourceAtEachScrape() {
        AtomicInteger live = new AtomicInteger(3);
        metrics.activeCalls("mo", live::get);
        metrics.registrations(() -> 7);
        AtomicInteger dialogs = new AtomicInteger(5);
        metrics.sipDialogs(dialogs::get);
        for (int i = 0; i < 3; i++) System.gc(); // the sources are lambdas nobody else holds: they must survive
        metrics.webSocketOpened();
        metrics.webSocketOpened();
        metrics.webSocketClosed();
        assertEquals(3, r.find("gw.calls.active").tag("direction", "mo").gauge().value());
        live.set(0);
        assertEquals(0, r.find("gw.calls.active").tag("direction", "mo").gauge().value());
        assertEquals(7, r.find("gw.registrations").gauge().value());
        assertEquals(5, r.find("gw.sip.dialogs").gauge().value());
        dialogs.set(0);
        assertEquals(0, r.find("gw.sip.dialogs").gauge().value());
        assertEquals(1, r.find("gw.websocket.sessions").gauge().value());
    }

    @Test
    void registerAndNgMeters() {
        metrics.registerSent("initial");
        metrics.registerSent("initial");
        metrics.registerDone("initial", true);
        metrics.registerDone("refresh", false);
        metrics.ngCommand("offer", 2_000_000, null);
        metrics.ngCommand("offer", 5_000_000, "timeout");
        assertEquals(2, count("gw.register.requests", "kind", "initial"));
        assertEquals(1, count("gw.registrations.completed", "kind", "initial", "result", "ok"));
        assertEquals(1, count("gw.registrations.completed", "kind", "refresh", "result", "failed"));
        assertEquals(2, r.find("gw.ng.latency").tag("command", "offer").timer().count());
        assertEquals(1, count("gw.ng.errors", "command", "offer", "kind", "timeout"));
    }

    @Test
    void theWarmupsNgRoundTripsMoveNoPublishedFigure() {
        metrics.ngWarmup("offer", 3_000_000);
        metrics.ngWarmup("answer", 40_000_000);
        assertEquals(0, r.find("gw.ng.latency").tag("command", "offer").timer().count(), "a warm-up offer counted on the published registry");
        assertEquals(0, r.find("gw.ng.latency").tag("command", "answer").timer().count());
        metrics.ngCommand("offer", 2_000_000, null);
        assertEquals(1, r.find("gw.ng.latency").tag("command", "offer").timer().count());
    }

    @Test
    void aCallsCountersAndKnownMovesAreScrapedAtZeroBeforeTheFirstCall() {
        metrics.callTransitionKnown("calling", "early");
        String text = prometheus.scrape();
        for (String d : new String[] {"mo", "mt"}) {
            assertTrue(text.contains("gw_call_attempts_total{direction=\"" + d + "\"} 0.0"), text);
            assertTrue(text.contains("gw_call_answers_total{direction=\"" + d + "\"} 0.0"), text);
        }
        assertTrue(text.contains("gw_call_transitions_total{from=\"calling\",to=\"early\"} 0.0"), text);
        metrics.callTransition("calling", "early");
        assertEquals(1, count("gw.call.transitions", "from", "calling", "to", "early"));
    }
}

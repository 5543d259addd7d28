package org.webrtcims.gw.metrics;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;
import static org.webrtcims.gw.metrics.SetupTimeline.Mark.*;

class SetupTimelineTest {
    private static final long MS = 1_000_000L;

    @SuppressWarnings("unchecked")
    private static Map<String, Object> steps(Map<String, Object> view) { return (Map<String, Object>) view.get("stepsMs"); }

    @Test
    void moStepsAreTheTimeBetweenTheirMarksAndGoToTheMeterOnceTheAnswerIsSent() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        SetupTimeline t = new SetupTimeline(registry);
        long t0 = System.nanoTime();
        t.mark("c1", NG_OFFER_SENT, t0 + 2 * MS);
        t.mark("c1", NG_OFFER_REPLY, t0 + 3 * MS);
        t.mark("c1", INVITE_SENT, t0 + 5 * MS);
        t.markKnown("c1", WS_CALL_RECEIVED, t0); // taken after the others, once the call has its id
        t.mark("c1", IMS_ANSWER_RECEIVED, t0 + 25 * MS);
        t.mark("c1", NG_ANSWER_SENT, t0 + 26 * MS);
        t.mark("c1", NG_ANSWER_REPLY, t0 + 28 * MS);
        assertEquals(false, t.of("c1").get("complete"), "no answer went to the browser yet: the set-up is not done");
        t.mark("c1", ANSWER_SENT, t0 + 28 * MS + 500_000);

        Map<String, Object> v = t.of("c1");
        assertEquals("mo", v.get("direction"), "a call whose timeline has no INVITE received is MO");
        assertEquals(true, v.get("complete"), "the answer went to the browser: set-up done");
        Map<String, Object> s = steps(v);
        assertEquals(2.0, s.get("browser-to-ng-offer"), "WebSocket message -> ng offer: 2 ms");
        assertEquals(1.0, s.get("mo-ng-offer"), "ng offer round trip: 1 ms");
        assertEquals(2.0, s.get("ng-offer-to-invite"), "ng reply -> INVITE: 2 ms");
        assertEquals(20.0, s.get("invite-to-answer"), "INVITE -> the UE's answer: 20 ms");
        assertEquals(1.0, s.get("ims-answer-to-ng-answer"));
        assertEquals(2.0, s.get("mo-ng-answer"));
        assertEquals(0.5, s.get("ng-answer-to-browser"), "ng answer reply -> answer to the browser: 0.5 ms");
        assertFalse(s.containsKey("invite-to-ng-offer"), "an MO timeline lists no MT step: " + s.keySet());

        Timer step = registry.find("gw.setup.step").tag("direction", "mo").tag("step", "ng-answer-to-browser")
                .tag("owner", "gateway").timer();
        assertNotNull(step, "the step's timer is registered once the set-up is done");
        assertEquals(1, step.count());
        assertEquals(0.5, step.totalTime(TimeUnit.MILLISECONDS), 1e-9);
        assertNull(registry.find("gw.setup.step").tag("step", "invite-to-ng-offer").timer(), "no MT step for an MO call");
    }

    @Test
    void mtStepsEndAtTheOkAndLaterMarksOfTheCallChangeNothing() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        SetupTimeline t = new SetupTimeline(registry);
        long t0 = System.nanoTime();
        t.mark("m1", INVITE_RECEIVED, t0);
        t.mark("m1", NG_OFFER_SENT, t0 + MS);
        t.mark("m1", NG_OFFER_REPLY, t0 + 2 * MS);
        t.mark("m1", INCOMING_SENT, t0 + 3 * MS);
        t.markKnown("m1", WS_ANSWER_RECEIVED, t0 + 40 * MS);
        t.mark("m1", NG_ANSWER_SENT, t0 + 41 * MS);
        t.mark("m1", NG_ANSWER_REPLY, t0 + 43 * MS);
        t.mark("m1", OK_SENT, t0 + 44 * MS);
        // a re-offer later in the call: its ng offer is not the set-up's
        t.mark("m1", NG_OFFER_SENT, t0 + 5000 * MS);
        Map<String, Object> v = t.of("m1");
        assertEquals("mt", v.get("direction"));
        Map<String, Object> s = steps(v);
        assertEquals(1.0, s.get("invite-to-ng-offer"));
        assertEquals(1.0, s.get("mt-ng-offer"), "the first offer's round trip, not the re-offer's");
        assertEquals(37.0, s.get("incoming-to-answer"), "the browser's share");
        assertEquals(1.0, s.get("ng-answer-to-ok"));
        assertEquals(1, registry.find("gw.setup.step").tag("step", "ng-answer-to-ok").timer().count());
    }

    @Test
    void missingMarksGiveNullStepsAndUnknownCallsAreNotStartedByTheBrowser() {
        SetupTimeline t = new SetupTimeline(new SimpleMeterRegistry());
        t.markKnown("forged", WS_ANSWER_RECEIVED, System.nanoTime());
        assertNull(t.of("forged"), "a call-id no timeline has must not start one (the browser names it)");
        t.mark("c2", NG_OFFER_SENT);
        Map<String, Object> s = steps(t.of("c2"));
        assertTrue(s.containsKey("mo-ng-offer") && s.get("mo-ng-offer") == null, "a step without its second mark is null: " + s);
    }

    @Test
    void recentListsTimelinesSinceAGivenTimeAndKeepsABoundedNumber() {
        SetupTimeline t = new SetupTimeline(new SimpleMeterRegistry());
        t.mark("old", NG_OFFER_SENT, System.nanoTime() - 60_000 * MS);
        long since = System.currentTimeMillis() - 1000;
        t.mark("new", NG_OFFER_SENT);
        List<Map<String, Object>> r = t.recent(since);
        assertEquals(List.of("new"), r.stream().map(m -> m.get("callId")).toList(), "only the timeline started after 'since'");
        for (int i = 0; i < SetupTimeline.KEPT + 10; i++) t.mark("c" + i, NG_OFFER_SENT);
        assertEquals(SetupTimeline.KEPT, t.recent(0).size(), "at most KEPT timelines are kept");
        assertNull(t.of("new"), "the oldest are dropped first");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> cpu(Map<String, Object> view) { return (Map<String, Object>) view.get("stepsCpuMs"); }

    @Test
    void aStepWhoseMarksAreTakenOnOneThreadHasItsCpuTimeBesideItsWallTime() throws Exception {
        SetupTimeline t = new SetupTimeline(new SimpleMeterRegistry());
        long received = System.nanoTime();
        long receivedCpu = SetupTimeline.cpuNow();
        assertTrue(receivedCpu >= 0, "this JVM measures a thread's CPU time (ThreadMXBean); the bench relies on it");
        long x = 0;
        while (SetupTimeline.cpuNow() - receivedCpu < 3 * MS) x++; // 3 ms of this thread's CPU (more wall time on a busy host)
        t.mark("c1", NG_OFFER_SENT);
        t.markKnown("c1", WS_CALL_RECEIVED, received, receivedCpu);
        Thread other = new Thread(() -> t.mark("c1", NG_OFFER_REPLY)); // the reply marked on another thread
        other.start();
        other.join();
        Map<String, Object> c = cpu(t.of("c1"));
        assertTrue(c.get("browser-to-ng-offer") instanceof Double d && d >= 3.0 && d <= (Double) steps(t.of("c1")).get("browser-to-ng-offer"),
                "the thread spent 3 ms of CPU between the two marks, and no more than the step's wall time: " + c + " (spin " + x + ")");
        assertFalse(c.containsKey("mo-ng-offer"), "a step marked on two threads has no CPU time of one thread: " + c);
        t.mark("c2", NG_OFFER_SENT, System.nanoTime());
        t.mark("c2", NG_OFFER_REPLY, System.nanoTime());
        assertTrue(cpu(t.of("c2")).isEmpty(), "marks given without the thread's CPU time give no CPU step: " + cpu(t.of("c2")));
    }

    @Test
    void offRecordsNothing() {
        SetupTimeline t = SetupTimeline.off();
        t.mark("c", INVITE_RECEIVED);
        assertNull(t.of("c"));
        assertTrue(t.recent(0).isEmpty());
    }
}

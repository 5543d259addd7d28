package org.webrtcims.gw.call;

import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The call's state machine: the transition table, and that Call moves only along it and records each move. */
class CallTransitionsTest {
    private static Call call(Direction d, CallState initial) {
        return new Call("c-1", d, "tok", "alice", "ue1@ims.lab", "ft", initial);
    }

    @Test
    void theTableAllowsTheMoAndMtLifecyclesAndEndingFromAnyLiveState() {
        assertEquals(EnumSet.of(CallState.EARLY, CallState.CONFIRMED, CallState.ENDED), CallState.CALLING.next(),
                "MO: a provisional, a 2xx without one, or the end");
        assertEquals(EnumSet.of(CallState.CONFIRMED, CallState.ENDED), CallState.EARLY.next());
        assertEquals(EnumSet.of(CallState.ANSWERING, CallState.ENDED), CallState.INCOMING.next(), "MT: our 200, or the end");
        assertEquals(EnumSet.of(CallState.CONFIRMED, CallState.ENDED), CallState.ANSWERING.next(), "MT: the ACK, or the end");
        assertEquals(EnumSet.of(CallState.ENDED), CallState.CONFIRMED.next());
        assertEquals(Set.of(), CallState.ENDED.next(), "an ended call stays ended");
        for (CallState s : CallState.values()) {
            assertFalse(s.canGo(s), s + " -> " + s + " is no move");
            if (s != CallState.ENDED) assertTrue(s.canGo(CallState.ENDED), s + " must be able to end");
        }
    }

    @Test
    void anMoCallMovesAlongTheTableAndRecordsEachMoveWithItsTime() {
        Call c = call(Direction.MO, CallState.CALLING);
        long before = System.currentTimeMillis();
        assertTrue(c.transition(CallState.EARLY));
        assertFalse(c.transition(CallState.EARLY), "a second provisional changes nothing and records nothing");
        assertTrue(c.transition(CallState.CONFIRMED));
        assertTrue(c.end("remote-hangup"));
        List<Call.Transition> t = c.transitions();
        assertEquals(List.of("CALLING>EARLY", "EARLY>CONFIRMED", "CONFIRMED>ENDED"),
                t.stream().map(x -> x.from() + ">" + x.to()).toList(), "every move, in order: " + t);
        assertTrue(t.get(0).atMillis() >= before && t.get(2).atMillis() >= t.get(0).atMillis(), "times in order: " + t);
        assertEquals("remote-hangup", c.endReason());
        assertTrue(c.endedAtMillis() >= before, "the end's time is kept");
    }

    @Test
    void aMoveTheTableForbidsIsRefusedAndLeavesTheStateAlone() {
        Call mt = call(Direction.MT, CallState.INCOMING);
        assertFalse(mt.transition(CallState.CONFIRMED), "MT is confirmed by the ACK of our 200, not before it");
        assertEquals(CallState.INCOMING, mt.state());
        assertFalse(mt.transition(CallState.EARLY), "EARLY is an MO state");
        assertEquals(List.of(), mt.transitions(), "refused moves are not recorded");
        assertTrue(mt.transition(CallState.ANSWERING));
        assertTrue(mt.transition(CallState.CONFIRMED));
        assertTrue(mt.end("local-hangup"));
        assertFalse(mt.end("timeout"), "the first end wins");
        assertFalse(mt.transition(CallState.CONFIRMED), "nothing leaves ENDED");
        assertEquals("local-hangup", mt.endReason());
        assertEquals(CallState.ENDED, mt.state());
    }

    @Test
    void outgoingEarlyIsTrueOnlyWhileAnMoCallWaitsForItsFinalResponse() {
        Call c = call(Direction.MO, CallState.CALLING);
        assertTrue(c.outgoingEarly());
        c.transition(CallState.EARLY);
        assertTrue(c.outgoingEarly());
        c.transition(CallState.CONFIRMED);
        assertFalse(c.outgoingEarly());
    }

    @Test
    void aRegisteredCallsTransitionsAreCountedByFromAndTo() {
        io.micrometer.core.instrument.simple.SimpleMeterRegistry meters = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        CallRegistry registry = new CallRegistry(new org.webrtcims.gw.metrics.GatewayMetrics(meters));
        Call a = call(Direction.MO, CallState.CALLING);
        Call b = new Call("c-2", Direction.MO, "tok", "alice", "ue1@ims.lab", "ft2", CallState.CALLING);
        registry.add(a);
        registry.add(b);
        assertTrue(a.transition(CallState.EARLY));
        assertTrue(b.transition(CallState.EARLY));
        assertFalse(a.transition(CallState.INCOMING), "a refused move");
        assertTrue(a.transition(CallState.CONFIRMED));
        assertEquals(2.0, count(meters, "calling", "early"), "both calls moved calling -> early");
        assertEquals(1.0, count(meters, "early", "confirmed"), "one call was answered");
        assertEquals(0.0, count(meters, "early", "incoming"), "a refused move is not counted");
    }

    private static double count(io.micrometer.core.instrument.MeterRegistry meters, String from, String to) {
        io.micrometer.core.instrument.Counter c = meters.find("gw.call.transitions").tag("from", from).tag("to", to).counter();
        return c == null ? 0 : c.count();
    }
}

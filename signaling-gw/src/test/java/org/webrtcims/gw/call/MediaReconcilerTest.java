package org.webrtcims.gw.call;

import org.junit.jupiter.api.Test;
import org.webrtcims.gw.config.GatewayProperties;

import java.util.List;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.*;

/** rtpengine's `list` against the registry: orphans deleted after two rounds, lost calls ended, startup and shutdown. */
class MediaReconcilerTest {
    private final CallMedia media = mock(CallMedia.class);
    private final CallTeardown teardown = mock(CallTeardown.class);
    private final CallEventSink sink = mock(CallEventSink.class);
    private final CallRegistry registry = new CallRegistry();
    private final GatewayProperties props = new GatewayProperties();

    MediaReconcilerTest() {
        props.getRtpengine().setReconcileMs(0); // rounds driven by the test
    }

    private Call live(String id, boolean rtpengineKnowsIt) {
        Call c = new Call(id, Direction.MO, "tok", "alice", "ue2@ims.lab", "ft-" + id, CallState.CONFIRMED);
        if (rtpengineKnowsIt) c.media().rtpengineAnswered();
        registry.add(c);
        return c;
    }

    @Test
    void atStartSessionsOfAnEarlierRunAreDeleted() throws Exception {
        when(media.sessions()).thenReturn(List.of("old-1", "old-2"));
        new MediaReconciler(registry, media, teardown, sink, props, new org.webrtcims.gw.metrics.WarmupCalls());
        verify(media, timeout(2000)).deleteOrphan("old-1");
        verify(media, timeout(2000)).deleteOrphan("old-2");
    }

    @Test
    void anOrphanIsDeletedWhenSeenInTwoRoundsInARowAndALiveCallIsNot() throws Exception {
        when(media.sessions()).thenReturn(List.of());
        MediaReconciler r = new MediaReconciler(registry, media, teardown, sink, props, new org.webrtcims.gw.metrics.WarmupCalls());
        verify(media, timeout(2000)).sessions();
        live("c1", true);
        when(media.sessions()).thenReturn(List.of("c1", "x", "y"));
        r.round();
        verify(media, never()).deleteOrphan(anyString());
        when(media.sessions()).thenReturn(List.of("c1", "x"));
        r.round();
        verify(media).deleteOrphan("x");
        verify(media, never()).deleteOrphan("y");
        verify(media, never()).deleteOrphan("c1");
        verifyNoInteractions(teardown);
    }

    @Test
    void aCallRtpengineLostEndsWithMediaLostButOneStillBeingSetUpDoesNot() throws Exception {
        when(media.sessions()).thenReturn(List.of());
        MediaReconciler r = new MediaReconciler(registry, media, teardown, sink, props, new org.webrtcims.gw.metrics.WarmupCalls());
        verify(media, timeout(2000)).sessions();
        Call lost = live("c1", true);
        Call settingUp = live("c2", false);
        r.round();
        verify(teardown).hangUp(lost, "media-lost");
        verify(teardown, never()).hangUp(eq(settingUp), anyString());
    }

    private static org.webrtcims.gw.media.MediaStats stats(long toIms, long toBrowser) {
        return new org.webrtcims.gw.media.MediaStats("opus/48000", "opus/48000", toIms, toBrowser, 0, 0);
    }

    @Test
    void aCallItsRelayRestoredIsEndedWhenItsMediaStaysDeadAndKeptWhenItFlows() throws Exception {
        when(media.sessions()).thenReturn(List.of());
        MediaReconciler r = new MediaReconciler(registry, media, teardown, sink, props, new org.webrtcims.gw.metrics.WarmupCalls());
        verify(media, timeout(2000)).sessions();
        Call dead = live("c1", true);
        Call alive = live("c2", true);
        when(media.sessions()).thenReturn(List.of("c1", "c2"));
        when(media.relayRecoveries(any())).thenReturn(0L);
        r.round(); // first sight: the relay's recoveries noted
        when(media.relayRecoveries(any())).thenReturn(1L); // the relay was down and answers again, calls restored
        when(media.stats(dead)).thenReturn(stats(500, 480));
        when(media.stats(alive)).thenReturn(stats(500, 480));
        r.round();
        verifyNoInteractions(teardown);
        when(media.stats(dead)).thenReturn(stats(650, 480)); // nothing came back from IMS
        when(media.stats(alive)).thenReturn(stats(650, 630));
        r.round();
        verify(teardown).hangUp(dead, "media-lost");
        verify(teardown, never()).hangUp(eq(alive), anyString());
        when(media.stats(alive)).thenReturn(stats(650, 630)); // later silence (e.g. hold) is not watched any more
        r.round();
        verify(teardown, never()).hangUp(eq(alive), anyString());
    }

    /** Two restored calls whose relay forwards both ways; each browser answers the two media-checks. */
    private MediaReconciler restoredPair(Call a, Call b) throws Exception {
        when(media.sessions()).thenReturn(List.of());
        MediaReconciler r = new MediaReconciler(registry, media, teardown, sink, props, new org.webrtcims.gw.metrics.WarmupCalls());
        verify(media, timeout(2000)).sessions();
        when(media.sessions()).thenReturn(List.of(a.id, b.id));
        when(media.relayRecoveries(any())).thenReturn(0L);
        r.round();
        when(media.relayRecoveries(any())).thenReturn(1L);
        when(media.stats(any())).thenReturn(stats(500, 480));
        r.round(); // first sight after the restart: baseline, first media-check
        verify(sink).toBrowser("tok", java.util.Map.of("type", "media-check", "callId", a.id));
        verify(sink).toBrowser("tok", java.util.Map.of("type", "media-check", "callId", b.id));
        when(media.stats(any())).thenReturn(stats(650, 630)); // rtpengine receives both ways
        return r;
    }

    @Test
    void aRestoredCallTheBrowserReceivesNothingOnIsEndedThoughItsRelayCountersGrow() throws Exception {
        Call silent = live("c1", true);
        Call fine = live("c2", true);
        MediaReconciler r = restoredPair(silent, fine);
        r.browserReport(silent, 250); // every packet since the restart failed SRTP authentication in the browser
        r.browserReport(fine, 250);
        r.round(); // one report each: a second check, judged next round
        verify(sink, times(2)).toBrowser("tok", java.util.Map.of("type", "media-check", "callId", silent.id));
        verifyNoInteractions(teardown);
        r.browserReport(silent, 250);
        r.browserReport(fine, 340);
        when(media.stats(any())).thenReturn(stats(800, 780));
        r.round();
        verify(teardown).hangUp(silent, "media-lost");
        verify(teardown, never()).hangUp(eq(fine), anyString());
        r.round(); // the call that passed is not watched any more
        verify(teardown, never()).hangUp(eq(fine), anyString());
    }

    @Test
    void aRestoredCallWhoseBrowserNeverAnswersIsJudgedByTheRelayAlone() throws Exception {
        Call quiet = live("c1", true);
        Call other = live("c2", true);
        MediaReconciler r = restoredPair(quiet, other);
        r.round();
        verifyNoInteractions(teardown);
        when(media.stats(any())).thenReturn(stats(800, 780));
        r.round(); // two rounds without a report: rtpengine's counters grew both ways, kept
        r.round();
        verifyNoInteractions(teardown);
    }

    @Test
    void aReportForACallNotWatchedIsIgnored() throws Exception {
        when(media.sessions()).thenReturn(List.of());
        MediaReconciler r = new MediaReconciler(registry, media, teardown, sink, props, new org.webrtcims.gw.metrics.WarmupCalls());
        r.browserReport(live("c1", true), 10);
        verifyNoInteractions(teardown, sink);
    }

    @Test
    void nothingIsDoneWhileRtpengineIsDown() throws Exception {
        when(media.sessions()).thenReturn(List.of());
        MediaReconciler r = new MediaReconciler(registry, media, teardown, sink, props, new org.webrtcims.gw.metrics.WarmupCalls());
        verify(media, timeout(2000)).sessions();
        live("c1", true);
        when(media.unavailable()).thenReturn(true);
        r.round();
        verify(media, times(1)).sessions();
        verifyNoInteractions(teardown);
    }

    @Test
    void shutdownEndsEveryLiveCall() throws Exception {
        when(media.sessions()).thenReturn(List.of());
        MediaReconciler r = new MediaReconciler(registry, media, teardown, sink, props, new org.webrtcims.gw.metrics.WarmupCalls());
        Call a = live("a", true);
        Call b = live("b", false);
        r.shutdown();
        verify(teardown).hangUp(a, "shutdown");
        verify(teardown).hangUp(b, "shutdown");
    }
}

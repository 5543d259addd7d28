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
    private final CallRegistry registry = new CallRegistry();
    private final GatewayProperties props = new GatewayProperties();

    MediaReconcilerTest() {
        props.getRtpengine().setReconcileMs(0); // rounds driven by the test
    }

    private Call live(String id, boolean rtpengineKnowsIt) {
        Call c = new Call(id, Direction.MO, "tok", "alice", "ue2@ims.lab", "ft-" + id, CallState.CONFIRMED);
        if (rtpengineKnowsIt) c.rtpengineSinceNanos = System.nanoTime() - 1_000_000;
        registry.add(c);
        return c;
    }

    @Test
    void atStartSessionsOfAnEarlierRunAreDeleted() throws Exception {
        when(media.sessions()).thenReturn(List.of("old-1", "old-2"));
        new MediaReconciler(registry, media, teardown, props);
        verify(media, timeout(2000)).deleteOrphan("old-1");
        verify(media, timeout(2000)).deleteOrphan("old-2");
    }

    @Test
    void anOrphanIsDeletedWhenSeenInTwoRoundsInARowAndALiveCallIsNot() throws Exception {
        when(media.sessions()).thenReturn(List.of());
        MediaReconciler r = new MediaReconciler(registry, media, teardown, props);
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
        MediaReconciler r = new MediaReconciler(registry, media, teardown, props);
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
        MediaReconciler r = new MediaReconciler(registry, media, teardown, props);
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

    @Test
    void nothingIsDoneWhileRtpengineIsDown() throws Exception {
        when(media.sessions()).thenReturn(List.of());
        MediaReconciler r = new MediaReconciler(registry, media, teardown, props);
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
        MediaReconciler r = new MediaReconciler(registry, media, teardown, props);
        Call a = live("a", true);
        Call b = live("b", false);
        r.shutdown();
        verify(teardown).hangUp(a, "shutdown");
        verify(teardown).hangUp(b, "shutdown");
    }
}

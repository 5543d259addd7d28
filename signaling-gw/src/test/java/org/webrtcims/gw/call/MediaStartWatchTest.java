package org.webrtcims.gw.call;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.media.MediaStats;
import org.webrtcims.gw.sip.SipRequests;
import org.webrtcims.gw.sip.SipUserAgent;

import javax.sip.Dialog;
import javax.sip.message.Request;
import java.util.*;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.*;

/** A confirmed call whose browser media never starts is hung up with media-timeout (BYE + ended). */
class MediaStartWatchTest {
    SipUserAgent ua = mock(SipUserAgent.class);
    CallMedia media = mock(CallMedia.class);
    CallTimers timers = mock(CallTimers.class);
    CallRegistry registry = new CallRegistry();
    List<Map<String, Object>> toBrowser = Collections.synchronizedList(new ArrayList<>());
    GatewayProperties props = new GatewayProperties();
    MediaStartWatch watch;
    Call call;
    Dialog dialog = mock(Dialog.class);

    @BeforeEach
    void setUp() throws Exception {
        CallWiring w = CallWiring.of(ua, mock(SipRequests.class), media, (t, m) -> toBrowser.add(m), registry,
                u -> Optional.empty(), mock(LocalMediaWatch.class), timers, props);
        watch = w.mediaStart();
        call = new Call("call-1", Direction.MO, "tok", "alice", "ue1", "atag", CallState.CONFIRMED, null, ua::sendInDialog);
        javax.sip.ClientTransaction invite = mock(javax.sip.ClientTransaction.class);
        when(invite.getDialog()).thenReturn(dialog);
        call.dialog().inviteSent(invite);
        when(dialog.createRequest(Request.BYE)).thenReturn(mock(Request.class));
    }

    private static MediaStats packetsToIms(long n) { return new MediaStats("opus/48000", "opus/48000", n, 0, 0, 0); }

    @Test
    void noMediaByTheDeadlineSendsByeAndEndsWithMediaTimeout() throws Exception {
        when(media.stats(call)).thenReturn(packetsToIms(0));
        assertFalse(watch.check(call, System.nanoTime() + 60_000_000_000L), "before the deadline: keep waiting");
        assertTrue(watch.check(call, System.nanoTime() - 1));
        verify(ua).sendInDialog(eq(dialog), any(), any());
        Map<String, Object> ended = toBrowser.get(toBrowser.size() - 1);
        assertEquals("ended", ended.get("type"));
        assertEquals("media-timeout", ended.get("reason"));
        assertEquals(CallState.ENDED, call.state());
    }

    @Test
    void mediaFromTheBrowserEndsTheWatchWithoutHangingUp() throws Exception {
        when(media.stats(call)).thenReturn(packetsToIms(3));
        assertTrue(watch.check(call, System.nanoTime() - 1));
        verify(ua, never()).sendInDialog(any(), any(), any());
        assertTrue(toBrowser.isEmpty());
    }

    @Test
    void watchIsScheduledUnlessTurnedOff() {
        watch.start(call);
        verify(timers).every(anyLong(), any());
        props.getRtpengine().setMediaStartTimeoutMs(0);
        watch.start(call);
        verify(timers, times(1)).every(anyLong(), any());
    }
}

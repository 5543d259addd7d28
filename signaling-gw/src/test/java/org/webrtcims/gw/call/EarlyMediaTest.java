package org.webrtcims.gw.call;

import org.junit.jupiter.api.Test;
import org.webrtcims.gw.sip.SipFixtures;

import javax.sip.message.Request;
import javax.sip.message.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.*;

/** MO early media: the first early answer reaches the browser once, on the fork that sent it; ringing and progress otherwise. */
class EarlyMediaTest {
    /** The call's SDP exchanges (its media leg, ScriptedLegs). */
    private final ScriptedLegs.Exchanges legs = mock(ScriptedLegs.Exchanges.class);
    private final CallTeardown teardown = mock(CallTeardown.class);
    private final Preconditions preconditions = mock(Preconditions.class);
    private final List<Map<String, Object>> toBrowser = new ArrayList<>();
    private final EarlyMedia early = new EarlyMedia((t, m) -> toBrowser.add(m), teardown, preconditions);
    private final Call c = ScriptedLegs.call("c-1", Direction.MO, "tok", "alice", "ue5@ims.lab", "ft", CallState.EARLY, legs);

    private static Response provisional(int code, String toTag, String sdp) throws Exception {
        Response r = SipFixtures.MESSAGES.createResponse(code, SipFixtures.request(Request.INVITE, "ue5", "c-1", "ft", null, 1, null));
        ((javax.sip.header.ToHeader) r.getHeader(javax.sip.header.ToHeader.NAME)).setTag(toTag);
        if (sdp != null) r.setContent(sdp, SipFixtures.HEADERS.createContentTypeHeader("application", "sdp"));
        return r;
    }

    private List<Object> types() { return toBrowser.stream().map(m -> m.get("type")).toList(); }

    @Test
    void theFirstEarlyAnswerGoesToTheBrowserOnItsForkAndStartsPreconditions() throws Exception {
        when(legs.bridgeImsAnswer(c, "v=0 a")).thenReturn("v=0 browser-a");
        javax.sip.Dialog forkA = mock(javax.sip.Dialog.class);
        early.provisional(c, provisional(183, "a", "v=0 a"), forkA);
        assertEquals(List.of("progress"), types());
        assertEquals("v=0 browser-a", toBrowser.get(0).get("sdp"));
        assertEquals(183, toBrowser.get(0).get("sipCode"));
        assertSame(forkA, c.dialog().sip(), "the call follows the fork whose answer the browser got");
        assertEquals("a", c.dialog().toTag());
        verify(preconditions).moAnswered(c, "v=0 a");

        early.provisional(c, provisional(183, "b", "v=0 b"), mock(javax.sip.Dialog.class));
        verify(legs, times(1)).bridgeImsAnswer(any(), anyString());
        assertEquals("a", c.dialog().toTag(), "a second early answer changes nothing");
        assertEquals(List.of("progress"), types(), "and the browser hears nothing of it");
    }

    @Test
    void a180WithAnAnswerIsProgressThenRingingWithoutOneJustRingingOrProgress() throws Exception {
        when(legs.bridgeImsAnswer(c, "v=0 a")).thenReturn("v=0 browser-a");
        early.provisional(c, provisional(180, "a", "v=0 a"), mock(javax.sip.Dialog.class));
        assertEquals(List.of("progress", "ringing"), types());
        toBrowser.clear();
        Call plain = new Call("c-2", Direction.MO, "tok", "alice", "ue1@ims.lab", "ft", CallState.EARLY);
        early.provisional(plain, provisional(180, "x", null), mock(javax.sip.Dialog.class));
        early.provisional(plain, provisional(181, "x", null), mock(javax.sip.Dialog.class));
        assertEquals(List.of("ringing", "progress"), types());
        assertEquals(181, toBrowser.get(1).get("sipCode"));
        verify(preconditions, times(1)).moAnswered(any(), any()); // the 180's answer only
    }

    @Test
    void anEarlyAnswerRtpengineRefusesEndsTheCallWithTheReason() throws Exception {
        when(legs.bridgeImsAnswer(c, "v=0 bad")).thenThrow(new CallFailure("media-failed", "rtpengine answer failed: x"));
        early.provisional(c, provisional(183, "a", "v=0 bad"), mock(javax.sip.Dialog.class));
        assertEquals(List.of("error"), types());
        assertEquals("media-failed", toBrowser.get(0).get("code"));
        verify(teardown).hangUp(c, "media-failed");
        verifyNoInteractions(preconditions);
    }
}

package org.webrtcims.gw.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;
import org.springframework.web.socket.CloseStatus;
import org.springframework.web.socket.TextMessage;
import org.springframework.web.socket.WebSocketSession;
import org.webrtcims.gw.call.CallFailure;
import org.webrtcims.gw.call.CallService;
import org.webrtcims.gw.config.GatewayProperties;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.ArgumentMatchers.*;
import static org.mockito.Mockito.*;

/** The browser's WebSocket messages: dispatch to CallService, and every bad input an `error` with a stable code. */
class BrowserSocketHandlerTest {
    SessionRegistry sessions = mock(SessionRegistry.class);
    CallService calls = mock(CallService.class);
    WebSocketEvents events = mock(WebSocketEvents.class);
    GatewayProperties props = new GatewayProperties();
    BrowserSocketHandler handler;
    WebSocketSession ws = mock(WebSocketSession.class);
    BrowserSession alice = new BrowserSession("tok-a", "alice", Long.MAX_VALUE);

    @BeforeEach
    void setUp() {
        props.getApi().setMaxMessageBytes(200);
        handler = new BrowserSocketHandler(sessions, calls, events, new ObjectMapper(), props);
        Map<String, Object> attrs = new HashMap<>(Map.of(BrowserSocketHandler.SESSION_ATTR, alice));
        when(ws.getAttributes()).thenReturn(attrs);
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> reply(String frame) {
        handler.handleTextMessage(ws, new TextMessage(frame));
        ArgumentCaptor<Map<String, Object>> m = ArgumentCaptor.forClass(Map.class);
        verify(events, atLeastOnce()).send(eq(ws), m.capture());
        List<Map<String, Object>> all = m.getAllValues();
        return all.get(all.size() - 1);
    }

    /** The reply to {@code frame}, which must be an error with {@code code}; returns its message. */
    private String error(String frame, String code) {
        Map<String, Object> r = reply(frame);
        assertEquals(code, r.get("code"), "the reply to " + frame + ": " + r);
        return String.valueOf(r.get("message"));
    }

    @Test
    void badInputGetsErrorsWithStableCodes() {
        assertEquals("bad-json", reply("{not json").get("code"));
        assertEquals("bad-message", reply("[1,2]").get("code"));
        assertEquals("bad-message", reply("{\"type\":3}").get("code"));
        Map<String, Object> unknown = reply("{\"type\":\"fly\",\"callId\":\"c9\"}");
        assertEquals("unknown-type", unknown.get("code"));
        assertEquals("c9", unknown.get("callId"));
        assertEquals("too-large", reply("{\"type\":\"ping\",\"pad\":\"" + "x".repeat(300) + "\"}").get("code"));
        assertEquals("bad-message", reply("{\"type\":\"dtmf\",\"callId\":\"c1\",\"digits\":\"1\",\"durationMs\":1.5}").get("code"));
        assertEquals("bad-message", reply("{\"type\":\"call\",\"to\":\"ue1\",\"sdp\":\"v=0\",\"imsCodec\":8}").get("code"));
        String badIdentity = error("{\"type\":\"call\",\"to\":\"ue1\",\"sdp\":\"v=0\",\"identity\":[\"sip:a@ims.lab\"]}", "bad-message");
        assertTrue(badIdentity.contains("'identity' must be a string"), badIdentity);
        assertEquals("bad-message", reply("{\"type\":\"media-report\",\"callId\":\"c1\",\"packetsReceived\":\"12\"}").get("code"));
        assertEquals("bad-message", reply("{\"type\":\"media-report\",\"callId\":\"c1\"}").get("code"));
        String badDtmf = error("{\"type\":\"answer\",\"callId\":\"c1\",\"sdp\":\"v=0\",\"dtmf\":\"rfc4733\"}", "bad-message");
        assertTrue(badDtmf.contains("'dtmf' must be \"inject\""), badDtmf);
        verifyNoInteractions(calls);
    }

    @Test
    void notJsonSaysWhereOrWhichLimitWithoutTheParsersClasses() {
        props.getApi().setMaxMessageBytes(10000);
        handler = new BrowserSocketHandler(sessions, calls, events, new ObjectMapper(), props);
        String m = error("[".repeat(1500) + "]".repeat(1500), "bad-json");
        assertTrue(m.contains("nested too deep"), m);
        assertFalse(m.matches("(?s).*(Constraints|Exception|\\bjava\\.|getMax|fasterxml).*"), "a class name in the message: " + m);
        String broken = error("{\"type\":\n\"ping\"", "bad-json");
        assertTrue(broken.matches("not JSON: malformed at line 2, column \\d+"), broken);
        verifyNoInteractions(calls);
    }

    @Test
    void aFailureInsideTheGatewayNamesNoException() {
        doThrow(new NullPointerException("Cannot invoke \"String.split(String)\" because \"value\" is null"))
                .when(calls).hangup("tok-a", "c1");
        Map<String, Object> r = reply("{\"type\":\"hangup\",\"callId\":\"c1\"}");
        assertEquals("internal", r.get("code"));
        assertEquals("the gateway failed to handle 'hangup'", r.get("message"));
    }

    @Test
    void messagesReachCallServiceWithTheSessionsToken() {
        handler.handleTextMessage(ws, new TextMessage("{\"type\":\"call\",\"to\":\"ue1\",\"sdp\":\"v=0\",\"imsCodec\":\"PCMA\"}"));
        verify(calls).call("tok-a", "alice", "ue1", "v=0", "PCMA", false, null);
        handler.handleTextMessage(ws, new TextMessage("{\"type\":\"call\",\"to\":\"ue6\",\"sdp\":\"v=0\",\"dtmf\":\"inject\"}"));
        verify(calls).call("tok-a", "alice", "ue6", "v=0", null, true, null);
        handler.handleTextMessage(ws, new TextMessage("{\"type\":\"call\",\"to\":\"ue1\",\"sdp\":\"v=0\",\"identity\":\"tel:+15550100\"}"));
        verify(calls).call("tok-a", "alice", "ue1", "v=0", null, false, "tel:+15550100");
        handler.handleTextMessage(ws, new TextMessage("{\"type\":\"answer\",\"callId\":\"c3\",\"sdp\":\"v=0\",\"dtmf\":\"inject\"}"));
        verify(calls).answer("tok-a", "c3", "v=0", true);
        handler.handleTextMessage(ws, new TextMessage("{\"type\":\"media\",\"callId\":\"c4\",\"sdp\":\"v=0\"}"));
        verify(calls).earlyMedia("tok-a", "c4", "v=0", false);
        handler.handleTextMessage(ws, new TextMessage("{\"type\":\"dtmf\",\"callId\":\"c1\",\"digits\":\"12#\"}"));
        verify(calls).dtmf("tok-a", "c1", "12#", null);
        handler.handleTextMessage(ws, new TextMessage("{\"type\":\"reject\",\"callId\":\"c2\"}"));
        verify(calls).hangup("tok-a", "c2");
        handler.handleTextMessage(ws, new TextMessage("{\"type\":\"media-report\",\"callId\":\"c5\",\"packetsReceived\":1234}"));
        verify(calls).mediaReport("tok-a", "c5", 1234L);
        assertEquals(Map.of("type", "pong"), reply("{\"type\":\"ping\"}"));
    }

    @Test
    void anIdentityOutsideTheRegisteredSetIsAClearJsonError() {
        when(calls.call("tok-a", "alice", "ue1", "v=0", null, false, "sip:boss@ims.lab")).thenThrow(new CallFailure("bad-identity",
                "'sip:boss@ims.lab' is not one of your registered identities (sip:alice@ims.lab, tel:+15550100)"));
        Map<String, Object> e = reply("{\"type\":\"call\",\"to\":\"ue1\",\"sdp\":\"v=0\",\"identity\":\"sip:boss@ims.lab\"}");
        assertEquals(Map.of("type", "error", "code", "bad-identity", "message",
                "'sip:boss@ims.lab' is not one of your registered identities (sip:alice@ims.lab, tel:+15550100)"), e);
    }

    @Test
    void aCallFailureIsAnErrorNamingTheCall() {
        doThrow(new CallFailure("unknown-call", "no call 'c7' in this session")).when(calls).answer("tok-a", "c7", "v=0", false);
        Map<String, Object> e = reply("{\"type\":\"answer\",\"callId\":\"c7\",\"sdp\":\"v=0\"}");
        assertEquals(Map.of("type", "error", "callId", "c7", "code", "unknown-call", "message", "no call 'c7' in this session"), e);
        doThrow(new IllegalStateException("boom")).when(calls).hangup("tok-a", "c8");
        assertEquals("internal", reply("{\"type\":\"hangup\",\"callId\":\"c8\"}").get("code"));
    }

    @Test
    void aSocketOfAnEndedSessionIsClosedAndLosingTheCurrentSocketEndsTheSession() throws Exception {
        when(sessions.byToken("tok-a")).thenReturn(Optional.empty());
        handler.afterConnectionEstablished(ws);
        verify(ws).close(argThat((CloseStatus s) -> s.getCode() == CloseStatus.POLICY_VIOLATION.getCode()));

        when(sessions.byToken("tok-a")).thenReturn(Optional.of(alice));
        WebSocketSession ws2 = mock(WebSocketSession.class);
        when(ws2.getAttributes()).thenReturn(new HashMap<>(Map.of(BrowserSocketHandler.SESSION_ATTR, alice)));
        handler.afterConnectionEstablished(ws2);
        handler.afterConnectionClosed(ws, CloseStatus.NORMAL); // not the session's socket: nothing ends
        verify(sessions, never()).end(any(), anyString(), anyBoolean());
        handler.afterConnectionClosed(ws2, CloseStatus.GOING_AWAY);
        verify(sessions).end(alice, "websocket-closed", false);
    }

    @Test
    void messagesBeyondThePerSecondBudgetGetRateLimited() {
        props.getApi().setWsMessagesPerSecond(3);
        handler = new BrowserSocketHandler(sessions, calls, events, new ObjectMapper(), props);
        for (int i = 0; i < 3; i++) assertEquals(Map.of("type", "pong"), reply("{\"type\":\"ping\"}"));
        assertEquals("rate-limited", reply("{\"type\":\"ping\"}").get("code"));
        verify(calls, never()).call(any(), any(), any(), any(), any(), anyBoolean(), any());
    }

    @Test
    void theBucketRefillsOverTime() {
        BrowserSocketHandler.MessageRate r = new BrowserSocketHandler.MessageRate(2, 0);
        assertTrue(r.take(0));
        assertTrue(r.take(0));
        assertFalse(r.take(0));
        assertFalse(r.take(400_000_000L)); // 0.8 of a message after 0.4 s
        assertTrue(r.take(500_000_000L));
    }

    @Test
    void theSelectedSubprotocolIsLabV1AndTheTokenComesFromTheOfferedOnes() {
        assertEquals(List.of("lab.v1"), handler.getSubProtocols());
        assertEquals(Optional.of("abc-_1"), WebSocketConfig.tokenOf(List.of("lab.v1, lab.token.abc-_1")));
        assertEquals(Optional.of("t2"), WebSocketConfig.tokenOf(List.of("lab.v1", "lab.token.t2")));
        assertEquals(Optional.empty(), WebSocketConfig.tokenOf(List.of("lab.v1, lab.token.")));
        assertEquals(Optional.empty(), WebSocketConfig.tokenOf(null));
    }

    @Test
    void withAGracePeriodALostSocketsSessionWaitsForANewSocketAndEndsWithoutOne() throws Exception {
        props.getApi().setWsReconnectGraceMs(300);
        SocketKeepalive keepalive = new SocketKeepalive(0, 0);
        handler = new BrowserSocketHandler(sessions, calls, events, new ObjectMapper(), props, keepalive);
        when(sessions.byToken("tok-a")).thenReturn(Optional.of(alice));
        handler.afterConnectionEstablished(ws);
        handler.afterConnectionClosed(ws, CloseStatus.GOING_AWAY);
        verify(sessions, never()).end(any(), anyString(), anyBoolean());

        // a new socket with the same token within the grace period takes the session over
        WebSocketSession again = mock(WebSocketSession.class);
        when(again.getAttributes()).thenReturn(new HashMap<>(Map.of(BrowserSocketHandler.SESSION_ATTR, alice)));
        handler.afterConnectionEstablished(again);
        Thread.sleep(600);
        verify(sessions, never()).end(any(), anyString(), anyBoolean());

        // that one is lost too and nobody comes back: the session ends after the grace period
        handler.afterConnectionClosed(again, CloseStatus.GOING_AWAY);
        verify(sessions, never()).end(any(), anyString(), anyBoolean());
        verify(sessions, timeout(2000)).end(alice, "websocket-closed", false);
        keepalive.stop();
    }
}

package org.webrtcims.gw.api;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.web.socket.WebSocketSession;
import org.webrtcims.gw.call.CallService;
import org.webrtcims.gw.sip.RegistrationClient;
import org.webrtcims.gw.sip.RegistrationException;

import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.*;

/** Login = IMS registration (its failures mapped to API codes), one session per user, logout ends calls and de-registers. */
class SessionRegistryTest {
    RegistrationClient registration = mock(RegistrationClient.class);
    CallService calls = mock(CallService.class);
    SessionStore store = new SessionStore();
    SessionRegistry sessions = new SessionRegistry(registration, calls, store);

    private ApiException loginFails(String user, String password) {
        return assertThrows(ApiException.class, () -> sessions.login(user, password));
    }

    @Test
    void badInputIsRefusedBeforeAnyRegister() {
        for (String user : new String[] {null, "", "a b", "x".repeat(65), "ü"}) {
            ApiException e = loginFails(user, "pw");
            assertEquals(HttpStatus.BAD_REQUEST, e.status());
            assertEquals("bad-message", e.code());
        }
        assertEquals("bad-message", loginFails("alice", "").code());
        verifyNoInteractions(registration);
    }

    @Test
    void registrationFailuresBecomeApiCodes() {
        record Case(RegistrationException.Kind kind, HttpStatus status, String code) { }
        for (Case c : new Case[] {
                new Case(RegistrationException.Kind.AUTH_FAILED, HttpStatus.UNAUTHORIZED, "auth-failed"),
                new Case(RegistrationException.Kind.TIMEOUT, HttpStatus.GATEWAY_TIMEOUT, "ims-timeout"),
                new Case(RegistrationException.Kind.REJECTED, HttpStatus.BAD_GATEWAY, "ims-rejected")}) {
            when(registration.register("alice", "pw")).thenReturn(
                    CompletableFuture.failedFuture(new RegistrationException(c.kind(), 403, "no")));
            ApiException e = loginFails("alice", "pw");
            assertEquals(c.status(), e.status(), c.kind().name());
            assertEquals(c.code(), e.code());
        }
        assertTrue(store.ofUser("alice").isEmpty());
    }

    @Test
    void aWrongWebPasswordDoesNotEndTheUsersSession() {
        // --lab.ims.credentials: the gateway checks the web password before it replaces a session
        when(registration.register("alice", "pw")).thenReturn(CompletableFuture.completedFuture(null));
        BrowserSession s = sessions.login("alice", "pw");
        doThrow(new RegistrationException(RegistrationException.Kind.AUTH_FAILED, 0, "unknown user or wrong password"))
                .when(registration).checkLogin("alice", "wrong");
        ApiException e = loginFails("alice", "wrong");
        assertEquals(HttpStatus.UNAUTHORIZED, e.status());
        assertEquals("auth-failed", e.code());
        assertSame(s, store.ofUser("alice").orElseThrow(), "the logged-in session stays");
        verify(registration, times(1)).register(anyString(), anyString());
        verify(registration, never()).unregister("alice");
    }

    @Test
    void aLoginGivesATokenTheBearerCheckAccepts() {
        when(registration.register("alice", "pw")).thenReturn(CompletableFuture.completedFuture(null));
        BrowserSession s = sessions.login("alice", "pw");
        assertTrue(s.token().length() >= 32, "unguessable token");
        assertSame(s, Bearer.session(sessions, "Bearer " + s.token()));
        assertEquals("bad-token", assertThrows(ApiException.class, () -> Bearer.session(sessions, s.token())).code(), "no Bearer prefix");
        assertEquals(HttpStatus.UNAUTHORIZED, assertThrows(ApiException.class, () -> Bearer.session(sessions, null)).status());
        assertEquals(s.token(), store.sessionOf("alice").orElseThrow());
    }

    @Test
    void aSecondLoginReplacesTheFirstSessionEndingItsCallsAndClosingItsSocket() throws Exception {
        when(registration.register(anyString(), anyString())).thenReturn(CompletableFuture.completedFuture(null));
        BrowserSession first = sessions.login("alice", "pw");
        WebSocketSession ws = mock(WebSocketSession.class);
        first.attach(ws);
        BrowserSession second = sessions.login("alice", "pw");
        verify(calls).endAll(first.token(), "replaced");
        verify(ws).close();
        verify(registration).unregister("alice"); // no session of alice was left at that moment
        assertTrue(sessions.byToken(first.token()).isEmpty());
        assertSame(second, sessions.byToken(second.token()).orElseThrow());
    }

    @Test
    void logoutEndsCallsAndDeregistersOnce() {
        when(registration.register("bob", "pw")).thenReturn(CompletableFuture.completedFuture(null));
        BrowserSession s = sessions.login("bob", "pw");
        assertTrue(sessions.logout(s.token()));
        assertFalse(sessions.logout(s.token()), "already gone");
        verify(calls, times(1)).endAll(s.token(), "logout");
        verify(registration, times(1)).unregister("bob");
    }
}

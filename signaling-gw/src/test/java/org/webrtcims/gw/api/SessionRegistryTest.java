package org.webrtcims.gw.api;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.web.socket.WebSocketSession;
import org.webrtcims.gw.call.CallService;
import org.webrtcims.gw.config.GatewayProperties;
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
    GatewayProperties props = new GatewayProperties();
    long now = 1_000_000;
    SessionRegistry sessions = registry();

    private SessionRegistry registry() {
        return new SessionRegistry(registration, calls, store, props, () -> now, false);
    }

    private ApiException loginFails(String user, String password) {
        return assertThrows(ApiException.class, () -> sessions.login(user, password, "127.0.0.1"));
    }

    @Test
    void badInputIsRefusedBeforeAnyRegister() {
        for (String user : new String[] {null, "", "a b", "x".repeat(65), "ü"}) {
            ApiException e = loginFails(user, "pw");
            assertEquals(HttpStatus.BAD_REQUEST, e.status());
            assertEquals("bad-message", e.code());
        }
        assertEquals("bad-message", loginFails("alice", "").code());
        verify(registration).onNetworkDeregistration(any()); // the registry listens from the start
        verifyNoMoreInteractions(registration);
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
    void aGuestGetsAPoolIdentityOrAClearCode() {
        when(registration.guestsEnabled()).thenReturn(false);
        ApiException off = assertThrows(ApiException.class, () -> sessions.loginGuest("127.0.0.1"));
        assertEquals(HttpStatus.FORBIDDEN, off.status());
        assertEquals("guest-login-off", off.code());
        verify(registration, never()).registerGuest();

        when(registration.guestsEnabled()).thenReturn(true);
        when(registration.registerGuest()).thenReturn(CompletableFuture.completedFuture("guest1"));
        BrowserSession g = sessions.loginGuest("127.0.0.1");
        assertEquals("guest1", g.user());
        assertEquals(g.token(), store.sessionOf("guest1").orElseThrow());

        when(registration.registerGuest()).thenReturn(CompletableFuture.failedFuture(
                new RegistrationException(RegistrationException.Kind.POOL_EXHAUSTED, 0, "all in use")));
        ApiException full = assertThrows(ApiException.class, () -> sessions.loginGuest("127.0.0.1"));
        assertEquals(HttpStatus.SERVICE_UNAVAILABLE, full.status());
        assertEquals("pool-exhausted", full.code());
    }

    @Test
    void aNetworkDeregistrationEndsTheSessionAndItsCalls() {
        when(registration.register("alice", "pw")).thenReturn(CompletableFuture.completedFuture(null));
        BrowserSession s = sessions.login("alice", "pw", "127.0.0.1");
        sessions.networkDeregistered("alice", "deactivated");
        verify(calls, atLeastOnce()).endAll(s.token(), "network-deregistered");
        assertTrue(store.byToken(s.token()).isEmpty(), "the session is gone");
        sessions.networkDeregistered("nobody", "deactivated"); // no session: nothing happens
    }

    @Test
    void aLoginGivesATokenTheBearerCheckAccepts() {
        when(registration.register("alice", "pw")).thenReturn(CompletableFuture.completedFuture(null));
        BrowserSession s = sessions.login("alice", "pw", "127.0.0.1");
        assertTrue(s.token().length() >= 32, "unguessable token");
        assertSame(s, Bearer.session(sessions, "Bearer " + s.token()));
        assertEquals("bad-token", assertThrows(ApiException.class, () -> Bearer.session(sessions, s.token())).code(), "no Bearer prefix");
        assertEquals(HttpStatus.UNAUTHORIZED, assertThrows(ApiException.class, () -> Bearer.session(sessions, null)).status());
        assertEquals(s.token(), store.sessionOf("alice").orElseThrow());
    }

    @Test
    void aTokenPrefixStartsEveryTokenAndTheTokenStillWorks() {
        props.getApi().setTokenPrefix("g2.");
        SessionRegistry prefixed = registry();
        when(registration.register("alice", "pw")).thenReturn(CompletableFuture.completedFuture(null));
        BrowserSession s = prefixed.login("alice", "pw", "127.0.0.1");
        assertTrue(s.token().startsWith("g2.") && s.token().length() >= 35, s.token());
        assertSame(s, Bearer.session(prefixed, "Bearer " + s.token()));
        assertThrows(IllegalArgumentException.class, () -> props.getApi().setTokenPrefix("a b"));
        assertThrows(IllegalArgumentException.class, () -> props.getApi().setTokenPrefix("x".repeat(17)));
    }

    @Test
    void aSecondLoginReplacesTheFirstSessionEndingItsCallsAndClosingItsSocketButKeepsTheRegistration() throws Exception {
        when(registration.register(anyString(), anyString())).thenReturn(CompletableFuture.completedFuture(null));
        BrowserSession first = sessions.login("alice", "pw", "127.0.0.1");
        WebSocketSession ws = mock(WebSocketSession.class);
        first.attach(ws);
        BrowserSession second = sessions.login("alice", "pw", "127.0.0.1");
        verify(calls).endAll(first.token(), "replaced");
        verify(ws).close();
        verify(registration, never()).unregister("alice"); // the new session's REGISTER is the binding now
        assertTrue(sessions.byToken(first.token()).isEmpty());
        assertSame(second, sessions.byToken(second.token()).orElseThrow());
    }

    @Test
    void aFailedLoginLeavesTheLiveSessionItsCallsAndItsRegistrationAlone() {
        when(registration.register("alice", "pw")).thenReturn(CompletableFuture.completedFuture(null));
        BrowserSession live = sessions.login("alice", "pw", "127.0.0.1");
        when(registration.register("alice", "guess")).thenReturn(CompletableFuture.failedFuture(
                new RegistrationException(RegistrationException.Kind.AUTH_FAILED, 401, "no")));
        assertEquals("auth-failed", loginFails("alice", "guess").code());
        assertSame(live, sessions.byToken(live.token()).orElseThrow());
        verify(calls, never()).endAll(anyString(), anyString());
        verify(registration, never()).unregister(anyString());
    }

    @Test
    void failedLoginsOfOneUserAreLimitedThenAllowedAgainAfterAMinute() {
        props.getApi().setLoginFailuresPerUser(3);
        sessions = registry();
        when(registration.register("mallory", "x")).thenReturn(CompletableFuture.failedFuture(
                new RegistrationException(RegistrationException.Kind.AUTH_FAILED, 401, "no")));
        for (int i = 0; i < 3; i++) assertEquals("auth-failed", loginFails("mallory", "x").code());
        ApiException limited = loginFails("mallory", "x");
        assertEquals(HttpStatus.TOO_MANY_REQUESTS, limited.status());
        assertEquals("too-many-logins", limited.code());
        verify(registration, times(3)).register("mallory", "x"); // the 4th never reached the registrar
        now += LoginLimiter.WINDOW_MS;
        assertEquals("auth-failed", loginFails("mallory", "x").code());
    }

    @Test
    void loginsFromOneAddressAreLimitedWhateverTheUser() {
        props.getApi().setLoginAttemptsPerAddress(2);
        sessions = registry();
        when(registration.register(anyString(), anyString())).thenReturn(CompletableFuture.completedFuture(null));
        sessions.login("alice", "pw", "10.0.0.1");
        sessions.login("bob", "pw", "10.0.0.1");
        assertEquals("too-many-logins", assertThrows(ApiException.class, () -> sessions.login("carol", "pw", "10.0.0.1")).code());
        sessions.login("carol", "pw", "10.0.0.2"); // another address is not affected
    }

    @Test
    void failedLoginsFromOneAddressAreLimitedAcrossUserNames() {
        props.getApi().setLoginFailuresPerAddress(2);
        sessions = registry();
        when(registration.register(anyString(), anyString())).thenReturn(CompletableFuture.failedFuture(
                new RegistrationException(RegistrationException.Kind.AUTH_FAILED, 401, "no")));
        assertEquals("auth-failed", assertThrows(ApiException.class, () -> sessions.login("u1", "x", "10.0.0.9")).code());
        assertEquals("auth-failed", assertThrows(ApiException.class, () -> sessions.login("u2", "x", "10.0.0.9")).code());
        assertEquals("too-many-logins", assertThrows(ApiException.class, () -> sessions.login("u3", "x", "10.0.0.9")).code());
    }

    @Test
    void sessionsInTotalAreCappedButAUserMayReplaceItsOwn() {
        props.getApi().setMaxSessions(1);
        sessions = registry();
        when(registration.register(anyString(), anyString())).thenReturn(CompletableFuture.completedFuture(null));
        sessions.login("alice", "pw", "127.0.0.1");
        ApiException full = assertThrows(ApiException.class, () -> sessions.login("bob", "pw", "127.0.0.1"));
        assertEquals(HttpStatus.SERVICE_UNAVAILABLE, full.status());
        assertEquals("too-many-sessions", full.code());
        verify(registration, never()).register("bob", "pw");
        sessions.login("alice", "pw", "127.0.0.1");
    }

    @Test
    void anExpiredTokenIsRefusedAndItsSessionEnded() throws Exception {
        props.getApi().setTokenTtlSeconds(60);
        sessions = registry();
        when(registration.register("alice", "pw")).thenReturn(CompletableFuture.completedFuture(null));
        BrowserSession s = sessions.login("alice", "pw", "127.0.0.1");
        WebSocketSession ws = mock(WebSocketSession.class);
        s.attach(ws);
        now += 59_000;
        sessions.expireDue();
        assertTrue(sessions.byToken(s.token()).isPresent());
        now += 1_000;
        assertTrue(sessions.byToken(s.token()).isEmpty(), "refused from the moment it expires");
        assertEquals("bad-token", assertThrows(ApiException.class, () -> Bearer.session(sessions, "Bearer " + s.token())).code());
        sessions.expireDue();
        verify(calls).endAll(s.token(), "expired");
        verify(registration).unregister("alice");
        verify(ws).close();
    }

    @Test
    void logoutEndsCallsAndDeregistersOnce() {
        when(registration.register("bob", "pw")).thenReturn(CompletableFuture.completedFuture(null));
        BrowserSession s = sessions.login("bob", "pw", "127.0.0.1");
        assertTrue(sessions.logout(s.token()));
        assertFalse(sessions.logout(s.token()), "already gone");
        verify(calls, times(1)).endAll(s.token(), "logout");
        verify(registration, times(1)).unregister("bob");
    }
}

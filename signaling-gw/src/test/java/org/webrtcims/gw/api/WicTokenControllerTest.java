package org.webrtcims.gw.api;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.sip.RegistrationClient;
import org.webrtcims.gw.sip.RegisteredIdentities;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.*;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

/** POST /api/v1/wic-tokens: a login gets a token for the user's IMPU and ends the gateway's own registration; a token refreshes itself. */
class WicTokenControllerTest {
    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final Pattern TOKEN = Pattern.compile("\"accessToken\":\"([^\"]+)\"");

    private final SessionRegistry sessions = mock(SessionRegistry.class);
    private final RegistrationClient registration = mock(RegistrationClient.class);
    private final WicTokens tokens = new WicTokens(KEY, 300, "ims.lab", System::currentTimeMillis);

    private MockMvc mvc(WicTokens t) {
        GatewayProperties props = new GatewayProperties();
        props.getIms().setDomain("ims.lab");
        WicTokenProperties wic = new WicTokenProperties();
        wic.setWsUrl("wss://198.18.0.1:5067");
        return MockMvcBuilders.standaloneSetup(new WicTokenController(t, wic, sessions, registration, props))
                .setControllerAdvice(new ApiErrors()).build();
    }

    private MockHttpServletResponse login(MockMvc mvc) throws Exception {
        return mvc.perform(post("/api/v1/wic-tokens").contentType(MediaType.APPLICATION_JSON)
                .content("{\"user\":\"ivan\",\"password\":\"ivan-secret\"}")).andReturn().getResponse();
    }

    @Test
    void loginGetsATokenForTheImpuAndEndsTheGatewaysRegistration() throws Exception {
        BrowserSession s = new BrowserSession("gw-token", "ivan", System.currentTimeMillis() + 3_600_000);
        when(sessions.login(eq("ivan"), eq("ivan-secret"), any())).thenReturn(s);
        when(registration.identities("ivan")).thenReturn(Optional.of(RegisteredIdentities.registered(List.of("sip:ivan@ims.lab"))));
        MockHttpServletResponse r = login(mvc(tokens));
        String body = r.getContentAsString();
        assertEquals(201, r.getStatus(), body);
        assertTrue(body.contains("\"impu\":\"sip:ivan@ims.lab\""), body);
        assertTrue(body.contains("\"wsUrl\":\"wss://198.18.0.1:5067\""), "the page must learn the eP-CSCF's URL: " + body);
        Matcher m = TOKEN.matcher(body);
        assertTrue(m.find(), body);
        WicTokens.Verified v = tokens.verify(m.group(1)).orElseThrow(() -> new AssertionError("the issued token must verify: " + body));
        assertEquals("sip:ivan@ims.lab", v.impu());
        verify(sessions).logout("gw-token"); // the WIC registers itself: the gateway's binding goes
    }

    @Test
    void aBadPasswordGetsNoToken() throws Exception {
        when(sessions.login(eq("ivan"), eq("ivan-secret"), any()))
                .thenThrow(new ApiException(HttpStatus.UNAUTHORIZED, "auth-failed", "wrong password"));
        MockHttpServletResponse r = login(mvc(tokens));
        assertEquals(401, r.getStatus());
        assertFalse(r.getContentAsString().contains("accessToken"), r.getContentAsString());
    }

    @Test
    void aValidTokenRefreshesItselfAndAnythingElseIsRefused() throws Exception {
        String old = tokens.issue("sip:ivan@ims.lab", System.currentTimeMillis() / 1000 + 3600).jwt();
        MockHttpServletResponse r = mvc(tokens).perform(post("/api/v1/wic-tokens").header("Authorization", "Bearer " + old)).andReturn().getResponse();
        assertEquals(201, r.getStatus(), r.getContentAsString());
        assertTrue(r.getContentAsString().contains("\"impu\":\"sip:ivan@ims.lab\""), r.getContentAsString());
        verifyNoInteractions(sessions);
        MockHttpServletResponse bad = mvc(tokens).perform(post("/api/v1/wic-tokens").header("Authorization", "Bearer gw-session-token")).andReturn().getResponse();
        assertEquals(401, bad.getStatus(), "a session token or garbage is no access token");
        assertTrue(bad.getContentAsString().contains("bad-token"), bad.getContentAsString());
    }

    @Test
    void withoutAKeyTheGatewayIssuesNone() throws Exception {
        MockHttpServletResponse r = login(mvc(new WicTokens(null, 300, "ims.lab", System::currentTimeMillis)));
        assertEquals(404, r.getStatus());
        assertTrue(r.getContentAsString().contains("wic-off"), r.getContentAsString());
        verifyNoInteractions(sessions);
    }
}

package org.webrtcims.gw.api;

import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.junit.jupiter.api.Assertions.*;

/** The security headers on every answer; HSTS only over HTTPS; the policy's WebSocket source is the request's Host. */
class SecurityHeadersTest {
    private MockHttpServletResponse get(String path, String host, boolean secure) throws Exception {
        MockHttpServletRequest req = new MockHttpServletRequest("GET", path);
        if (host != null) req.addHeader("Host", host);
        req.setSecure(secure);
        MockHttpServletResponse res = new MockHttpServletResponse();
        MockFilterChain chain = new MockFilterChain();
        new SecurityHeaders().doFilter(req, res, chain);
        assertNotNull(chain.getRequest(), "the request goes on to the application");
        return res;
    }

    @Test
    void everyAnswerGetsTheHeaders() throws Exception {
        for (String path : new String[] {"/", "/index.html", "/api/v1/health", "/ws", "/error", "/nothing"}) {
            MockHttpServletResponse r = get(path, "127.0.0.1:8088", false);
            assertEquals("nosniff", r.getHeader("X-Content-Type-Options"), path);
            assertEquals("DENY", r.getHeader("X-Frame-Options"), path);
            assertEquals("no-referrer", r.getHeader("Referrer-Policy"), path);
            String csp = r.getHeader("Content-Security-Policy");
            assertNotNull(csp, path);
            assertTrue(csp.contains("frame-ancestors 'none'"), csp);
            assertTrue(csp.contains("script-src 'self';"), "only the page's own scripts, nothing inline: " + csp);
            assertFalse(csp.contains("unsafe"), "no unsafe-inline/unsafe-eval: " + csp);
            assertNull(r.getHeader("Strict-Transport-Security"), "no HSTS over plain HTTP (RFC 6797 §7.2) on " + path);
        }
    }

    @Test
    void hstsAndWssOnlyOverHttps() throws Exception {
        MockHttpServletResponse r = get("/", "198.18.0.1:8093", true);
        assertEquals(SecurityHeaders.HSTS, r.getHeader("Strict-Transport-Security"));
        assertTrue(r.getHeader("Content-Security-Policy").contains("connect-src 'self' wss://198.18.0.1:8093;"), r.getHeader("Content-Security-Policy"));
        assertTrue(get("/", "127.0.0.1:8088", false).getHeader("Content-Security-Policy").contains("connect-src 'self' ws://127.0.0.1:8088;"));
        assertTrue(get("/", "[::1]:8088", false).getHeader("Content-Security-Policy").contains("ws://[::1]:8088;"));
    }

    @Test
    void aHostThatIsNoHostNameIsNotWrittenIntoThePolicy() throws Exception {
        for (String host : new String[] {"evil; script-src *", "a b", "x'y", "host:port"}) {
            String csp = get("/", host, false).getHeader("Content-Security-Policy");
            assertTrue(csp.contains("connect-src 'self';"), "Host " + host + " -> " + csp);
            assertFalse(csp.contains("evil") || csp.contains("script-src *"), csp);
        }
        assertTrue(get("/", null, false).getHeader("Content-Security-Policy").contains("connect-src 'self';"));
    }

    @Test
    void theEpcscfWebSocketIsAConnectSourceWhenConfigured() throws Exception {
        MockHttpServletRequest req = new MockHttpServletRequest("GET", "/");
        req.addHeader("Host", "198.18.0.1:8088");
        MockHttpServletResponse res = new MockHttpServletResponse();
        new SecurityHeaders("wss://198.18.0.1:5067/path").doFilter(req, res, new MockFilterChain());
        String csp = res.getHeader("Content-Security-Policy");
        assertTrue(csp.contains("connect-src 'self' ws://198.18.0.1:8088 wss://198.18.0.1:5067;"),
                "the SIP-over-WebSocket client must be allowed to reach the eP-CSCF (origin only): " + csp);
        MockHttpServletResponse plain = get("/", "198.18.0.1:8088", false);
        assertFalse(plain.getHeader("Content-Security-Policy").contains("5067"), "no eP-CSCF source without lab.wic.ws-url");
    }
}

package org.webrtcims.gw.api;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.util.regex.Pattern;

/**
 * The browser-facing security headers on every answer of the HTTP port — the web client's files, the REST API,
 * its errors (also those the container forwards to `/error`) and the WebSocket upgrade's 101 — set before
 * anything else runs (docs/security.md "Response headers"):
 * <ul>
 * <li>`Content-Security-Policy`: what the web client needs and nothing more: its own scripts (app.js, the
 *   vendored Chart.js, the audio worklet), styles and JSON; the WebSocket of the origin it was loaded from
 *   (`ws:`/`wss:` of the request's Host: CSP's `'self'` covers those only in newer browsers) and the eP-CSCF's
 *   (lab.wic.ws-url: the SIP-over-WebSocket client, docs/ims-sim.md "eP-CSCF for WICs using Gm"); media from
 *   `MediaStream`s; no plugins, no `<base>`, no framing;</li>
 * <li>`X-Frame-Options: DENY` (older browsers; `frame-ancestors 'none'` for the others), `X-Content-Type-Options:
 *   nosniff`, `Referrer-Policy: no-referrer`, `Cross-Origin-Opener-Policy: same-origin`;</li>
 * <li>`Strict-Transport-Security` only on answers sent over HTTPS (RFC 6797 §7.2: never over plain HTTP).</li>
 * </ul>
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
public class SecurityHeaders extends OncePerRequestFilter {
    static final String HSTS = "max-age=31536000";
    /** A Host header that may be written into the policy: host name, IPv4 or [IPv6], optional port. */
    private static final Pattern HOST = Pattern.compile("(?:[A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])(?::[0-9]{1,5})?");
    /** The eP-CSCF's WebSocket origin (scheme://host:port of lab.wic.ws-url), or "" without one. */
    private final String epcscf;

    public SecurityHeaders() { this(""); }

    @org.springframework.beans.factory.annotation.Autowired
    public SecurityHeaders(WicTokenProperties wic) { this(wic.getWsUrl()); }

    SecurityHeaders(String wicWsUrl) {
        java.util.regex.Matcher m = Pattern.compile("(wss?://[^/\\s]+).*").matcher(wicWsUrl == null ? "" : wicWsUrl);
        this.epcscf = m.matches() ? " " + m.group(1) : "";
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        response.setHeader("Content-Security-Policy", policy(request.getHeader("Host"), request.isSecure(), epcscf));
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("X-Frame-Options", "DENY");
        response.setHeader("Referrer-Policy", "no-referrer");
        if (request.isSecure()) response.setHeader("Strict-Transport-Security", HSTS);
        chain.doFilter(request, response);
    }

    /** Also the container's error forward (`/error`): those answers need the headers too. */
    @Override
    protected boolean shouldNotFilterErrorDispatch() {
        return false;
    }

    static String policy(String host, boolean secure) { return policy(host, secure, ""); }

    static String policy(String host, boolean secure, String extraSockets) {
        String socket = (host != null && HOST.matcher(host).matches() ? " " + (secure ? "wss://" : "ws://") + host : "") + extraSockets;
        return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
                + "connect-src 'self'" + socket + "; media-src 'self' blob: mediastream:; worker-src 'self'; "
                + "manifest-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
    }
}

package org.webrtcims.gw.api;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.*;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;
import org.webrtcims.gw.sip.RegistrationClient;

import java.util.Map;

/** Login (REGISTER toward IMS) and logout. */
@RestController
@RequestMapping("/api/v1/sessions")
public class SessionController {
    /** {user, password}, or {guest: true} for an identity from the pool (TS 24.371 §6). */
    public record Login(String user, String password, Boolean guest) { }

    private final SessionRegistry sessions;
    private final RegistrationClient registration;
    private final TurnCredentials turn;

    public SessionController(SessionRegistry sessions, RegistrationClient registration, TurnCredentials turn) {
        this.sessions = sessions;
        this.registration = registration;
        this.turn = turn;
    }

    /** The caller's own session and its IMS registration (expiry granted, refreshes so far). */
    @GetMapping("/current")
    public Map<String, Object> current(@RequestHeader(value = "Authorization", required = false) String auth) {
        BrowserSession s = Bearer.session(sessions, auth);
        Map<String, Object> out = new java.util.LinkedHashMap<>();
        out.put("user", s.user());
        registration.status(s.user()).ifPresent(r -> {
            Map<String, Object> reg = new java.util.LinkedHashMap<>();
            reg.put("expires", r.grantedExpires());
            reg.put("refreshes", r.refreshes());
            reg.put("registeredAt", java.time.Instant.ofEpochMilli(r.registeredAtMillis()).toString());
            reg.put("auth", r.auth()); // "digest", "AKAv1-MD5" or "trusted-node" (--lab.ims.credentials)
            reg.put("scenario", r.scenario()); // TS 24.371 §6: ims, web or pool
            if (r.impi() != null) reg.put("impi", r.impi());
            if (r.impu() != null) reg.put("impu", r.impu());
            if (r.regEvent() != null) reg.put("regEvent", r.regEvent()); // RFC 3680 subscription state
            // TS 24.229 §5.1.1.2.1: the registered public user identities (P-Associated-URI), the default first
            reg.put("identities", r.identities());
            reg.put("sipFlow", r.sipFlow());
            // the registered Contact: its user part is random per registration (docs/security.md "SIP sources")
            reg.put("contact", r.contact());
            out.put("registration", reg);
        });
        return out;
    }

    @PostMapping
    public ResponseEntity<Map<String, Object>> login(@RequestBody(required = false) Login body, HttpServletRequest request) {
        if (body == null) throw new ApiException(HttpStatus.BAD_REQUEST, "bad-message", "JSON body {user, password} expected");
        BrowserSession s = Boolean.TRUE.equals(body.guest())
                ? sessions.loginGuest(request.getRemoteAddr())
                : sessions.login(body.user(), body.password(), request.getRemoteAddr());
        String base = ServletUriComponentsBuilder.fromCurrentContextPath().build().toUriString();
        Map<String, Object> out = new java.util.LinkedHashMap<>();
        out.put("token", s.token());
        // The token is not in the URL (proxies and logs keep URLs): the WebSocket presents it as a subprotocol.
        out.put("wsUrl", base.replaceFirst("^http", "ws") + "/ws");
        out.put("wsProtocols", java.util.List.of(WebSocketConfig.PROTOCOL, WebSocketConfig.TOKEN_PROTOCOL_PREFIX + s.token()));
        out.put("expiresAt", java.time.Instant.ofEpochMilli(s.expiresAtMillis()).toString());
        out.put("user", s.user());
        // the identities the user may call as (`call.identity`) and the default one, which a call without it uses
        registration.identities(s.user()).ifPresent(ids -> {
            out.put("identity", ids.defaultIdentity());
            out.put("identities", ids.all());
        });
        // lab.webrtc.turn-uris: the page's RTCPeerConnection iceServers, with TURN credentials that expire with the session
        turn.iceServers(s.user(), s.expiresAtMillis()).ifPresent(servers -> out.put("iceServers", servers));
        return ResponseEntity.status(HttpStatus.CREATED).body(out);
    }

    private volatile org.webrtcims.gw.call.FailoverNotes failoverNotes; // lab.failover.redis only (docs/scale-out.md)

    @org.springframework.beans.factory.annotation.Autowired(required = false)
    void setFailoverNotes(org.webrtcims.gw.call.FailoverNotes notes) { this.failoverNotes = notes; }

    /**
     * Logout by the bearer token. The token of a session whose gateway died (docs/scale-out.md, gateway failover):
     * 200 with the calls another gateway ended for it, `{ended: [{callId, reason}]}`, once.
     */
    @DeleteMapping("/current")
    public ResponseEntity<?> logoutCurrent(@RequestHeader(value = "Authorization", required = false) String auth) {
        org.webrtcims.gw.call.FailoverNotes notes = failoverNotes;
        String token = Bearer.token(auth);
        if (notes != null && token != null && sessions.byToken(token).isEmpty()) {
            java.util.List<Map<String, String>> ended = notes.takeEnded(token);
            if (!ended.isEmpty()) return ResponseEntity.ok(Map.of("ended", ended));
        }
        BrowserSession s = Bearer.session(sessions, auth);
        sessions.logout(s.token());
        return ResponseEntity.noContent().build();
    }

    /** Logout by the token itself (knowing it is the authorisation). */
    @DeleteMapping("/{token}")
    public ResponseEntity<Void> logout(@PathVariable String token) {
        if (!sessions.logout(token)) throw new ApiException(HttpStatus.NOT_FOUND, "unknown-session", "no such session");
        return ResponseEntity.noContent().build();
    }
}

package org.webrtcims.gw.api;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.sip.RegistrationClient;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * POST /api/v1/wic-tokens: the WAF's access token for a WIC using Gm (TS 24.371 §7.2; docs/security.md "WIC access
 * tokens"), which it presents as `Authorization: Bearer` in every SIP request to the eP-CSCF (RFC 8898).
 * <ul>
 *   <li>body {user, password}: the web login. The password is checked as every login's is (the gateway REGISTERs
 *       the user, the registrar decides; the login limits apply); the gateway then de-registers at once, since the
 *       WIC registers itself through the eP-CSCF. A live gateway session of the user ends ("replaced").</li>
 *   <li>`Authorization: Bearer <a valid access token>`, no body: a fresh token for the same IMPU, up to the end
 *       of the login it comes from (lab.api.token-ttl-seconds).</li>
 * </ul>
 */
@RestController
public class WicTokenController {
    private final WicTokens tokens;
    private final WicTokenProperties wic;
    private final SessionRegistry sessions;
    private final RegistrationClient registration;
    private final String domain;

    public WicTokenController(WicTokens tokens, WicTokenProperties wic, SessionRegistry sessions,
                              RegistrationClient registration, GatewayProperties props) {
        this.tokens = tokens;
        this.wic = wic;
        this.sessions = sessions;
        this.registration = registration;
        this.domain = props.getIms().getDomain();
    }

    @PostMapping("/api/v1/wic-tokens")
    public ResponseEntity<Map<String, Object>> issue(@RequestBody(required = false) SessionController.Login body,
                                                     @RequestHeader(value = "Authorization", required = false) String auth,
                                                     HttpServletRequest request) {
        if (!tokens.enabled()) {
            throw new ApiException(HttpStatus.NOT_FOUND, "wic-off", "this gateway issues no WIC access tokens (lab.wic.key-file is not set)");
        }
        WicTokens.Token t;
        if (body != null) {
            if (body.user() == null || Boolean.TRUE.equals(body.guest())) {
                throw new ApiException(HttpStatus.BAD_REQUEST, "bad-message", "JSON body {user, password} expected");
            }
            BrowserSession s = sessions.login(body.user(), body.password(), request.getRemoteAddr());
            String impu = registration.identities(s.user()).map(ids -> ids.defaultIdentity())
                    .orElse("sip:" + s.user() + "@" + domain);
            long loginExp = s.expiresAtMillis() / 1000;
            sessions.logout(s.token()); // de-REGISTER: the WIC registers itself
            t = tokens.issue(impu, loginExp);
        } else {
            WicTokens.Verified c = tokens.verify(Bearer.token(auth)).orElseThrow(() -> new ApiException(HttpStatus.UNAUTHORIZED,
                    "bad-token", "a JSON body {user, password} or a valid 'Authorization: Bearer <access token>' is required"));
            // a valid token expires no later than its login (WicTokens.issue), so the login is still on
            t = tokens.issue(c.impu(), c.loginExp());
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("accessToken", t.jwt());
        out.put("tokenType", "Bearer");
        out.put("expiresAt", Instant.ofEpochSecond(t.expiresAt()).toString());
        out.put("impu", t.impu());
        out.put("domain", domain);
        if (!wic.getWsUrl().isEmpty()) out.put("wsUrl", wic.getWsUrl());
        return ResponseEntity.status(HttpStatus.CREATED).body(out);
    }
}

package org.webrtcims.gw.api;

import org.springframework.stereotype.Component;
import org.webrtcims.gw.config.GatewayProperties;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Short-lived TURN credentials for a logged-in page (`lab.webrtc.turn-*`, docs/security.md "TURN"), as the TURN REST
 * API (draft-uberti-behave-turn-rest-00, coturn `use-auth-secret`) defines them: the user name is
 * `<expiry in epoch seconds>:<user>`, the password base64(HMAC-SHA1(shared secret, user name)). The TURN server
 * checks both with the same secret and refuses the credentials after the expiry, which is the session token's: a
 * session's calls end with it (docs/security.md "Tokens"), so no relay it uses needs them longer, and the TURN
 * server refuses them (new allocations, refreshes) once the session is over. The secret never leaves the gateway and
 * is read from a file (never from the command line).
 */
@Component
public class TurnCredentials {
    private final List<String> uris;
    private final byte[] secret;

    public TurnCredentials(GatewayProperties props) {
        GatewayProperties.Webrtc w = props.getWebrtc();
        this.uris = List.copyOf(w.getTurnUris());
        if (uris.isEmpty()) {
            this.secret = null;
            return;
        }
        for (String u : uris) {
            if (!u.matches("(turns?|stuns?):[^\\s]+")) {
                throw new IllegalStateException("lab.webrtc.turn-uris: '" + u + "' is not a turn:, turns:, stun: or stuns: URI");
            }
        }
        this.secret = readSecret(w.getTurnSecretFile());
    }

    static byte[] readSecret(String file) {
        if (file == null || file.isBlank()) {
            throw new IllegalStateException("lab.webrtc.turn-secret-file is required with lab.webrtc.turn-uris (the TURN server's static-auth-secret)");
        }
        String s;
        try {
            s = Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("lab.webrtc.turn-secret-file: cannot read '" + file + "' (" + e.getMessage() + ")", e);
        }
        if (s.isEmpty()) throw new IllegalStateException("lab.webrtc.turn-secret-file: '" + file + "' is empty");
        return s.getBytes(StandardCharsets.UTF_8);
    }

    public boolean enabled() { return secret != null; }

    /** The RTCPeerConnection `iceServers` for this user's page, valid until its session expires; empty when TURN is off. */
    public Optional<List<Map<String, Object>>> iceServers(String user, long expiresAtMillis) {
        if (secret == null) return Optional.empty();
        long expiry = expiresAtMillis / 1000;
        String username = expiry + ":" + user;
        Map<String, Object> server = new LinkedHashMap<>();
        server.put("urls", uris);
        server.put("username", username);
        server.put("credential", password(secret, username));
        return Optional.of(List.of(server));
    }

    static String password(byte[] secret, String username) {
        try {
            Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(new SecretKeySpec(secret, "HmacSHA1"));
            return Base64.getEncoder().encodeToString(mac.doFinal(username.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA1 is not available: " + e.getMessage(), e);
        }
    }
}

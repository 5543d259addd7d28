package org.webrtcims.gw.api;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.config.GatewayProperties;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.text.ParseException;
import java.util.Base64;
import java.util.Date;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The access tokens the gateway, as WAF, issues to WICs using Gm (TS 24.371 §7.2, RFC 8898 `Authorization: Bearer`;
 * docs/security.md "WIC access tokens"): JWTs signed HS256 with the key the eP-CSCF checks them with. Claims: iss
 * {@link #ISSUER}, aud the IMS domain, sub the user's IMPU, iat, exp (lab.wic.ttl-seconds on), jti, and
 * {@link #LOGIN_EXP}: when the login they come from ends (the session lifetime, lab.api.token-ttl-seconds); a refresh
 * never goes past it.
 */
@Component
public class WicTokens {
    static final String ISSUER = "webrtc-ims-gw";
    static final String LOGIN_EXP = "login_exp";
    private static final SecureRandom RANDOM = new SecureRandom();

    /** An issued token: the JWT, its subject and when it expires (epoch seconds). */
    public record Token(String jwt, String impu, long expiresAt) { }

    /** What a valid token says: its subject (the IMPU) and when its login ends (epoch seconds). */
    public record Verified(String impu, long loginExp) { }

    private final byte[] key;
    private final int ttlSeconds;
    private final String audience;
    private final LongSupplier clockMillis;

    @Autowired
    public WicTokens(WicTokenProperties wic, GatewayProperties props) {
        this(readKey(wic.getKeyFile()), wic.getTtlSeconds(), props.getIms().getDomain(), System::currentTimeMillis);
    }

    WicTokens(byte[] key, int ttlSeconds, String audience, LongSupplier clockMillis) {
        this.key = key;
        this.ttlSeconds = ttlSeconds;
        this.audience = audience;
        this.clockMillis = clockMillis;
    }

    static byte[] readKey(String file) {
        if (file == null || file.isBlank()) return null;
        byte[] k;
        try {
            k = Files.readAllBytes(Path.of(file));
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("lab.wic.key-file: cannot read '" + file + "' (" + e.getMessage() + ")", e);
        }
        // HS256 needs a key of at least 256 bits (RFC 7518 §3.2)
        if (k.length < 32) throw new IllegalStateException("lab.wic.key-file: '" + file + "' holds " + k.length + " bytes, HS256 needs 32 or more");
        return k;
    }

    public boolean enabled() { return key != null; }

    /** A fresh token for impu, valid ttl seconds but not past loginExp (epoch seconds). */
    public Token issue(String impu, long loginExp) {
        long now = clockMillis.getAsLong() / 1000;
        long exp = Math.min(now + ttlSeconds, loginExp);
        byte[] jti = new byte[12];
        RANDOM.nextBytes(jti);
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .issuer(ISSUER).audience(audience).subject(impu)
                .issueTime(new Date(now * 1000)).expirationTime(new Date(exp * 1000))
                .jwtID(Base64.getUrlEncoder().withoutPadding().encodeToString(jti))
                .claim(LOGIN_EXP, loginExp)
                .build();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).type(JOSEObjectType.JWT).build(), claims);
        try {
            jwt.sign(new MACSigner(key));
        } catch (JOSEException e) {
            throw new IllegalStateException("signing the access token failed: " + e.getMessage(), e);
        }
        return new Token(jwt.serialize(), impu, exp);
    }

    /** The claims of a token this gateway signed, HS256, for this domain, not expired; empty otherwise. */
    public Optional<Verified> verify(String token) {
        if (key == null || token == null || token.isEmpty()) return Optional.empty();
        try {
            SignedJWT jwt = SignedJWT.parse(token);
            if (!JWSAlgorithm.HS256.equals(jwt.getHeader().getAlgorithm())) return Optional.empty();
            if (!jwt.verify(new MACVerifier(key))) return Optional.empty();
            JWTClaimsSet c = jwt.getJWTClaimsSet();
            long now = clockMillis.getAsLong();
            if (!ISSUER.equals(c.getIssuer()) || c.getAudience() == null || !c.getAudience().contains(audience)
                    || c.getSubject() == null || c.getExpirationTime() == null
                    || c.getExpirationTime().getTime() <= now || c.getLongClaim(LOGIN_EXP) == null) {
                return Optional.empty();
            }
            return Optional.of(new Verified(c.getSubject(), c.getLongClaim(LOGIN_EXP)));
        } catch (ParseException | JOSEException e) {
            return Optional.empty();
        }
    }
}

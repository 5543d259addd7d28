package org.webrtcims.gw.sip.aka;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;

/**
 * HTTP Digest AKA, version 1 (RFC 3310): the nonce of an {@code algorithm=AKAv1-MD5} challenge is
 * base64(RAND ‖ AUTN ‖ server data); the client answers with MD5 digest (RFC 2617) whose password is RES
 * (as octets), or, when the SQN was not fresh, with an empty password and {@code auts="base64(AUTS)"}
 * (RFC 3310 §3.4).
 */
public final class AkaDigest {
    public static final String ALGORITHM = "AKAv1-MD5";
    private static final SecureRandom RANDOM = new SecureRandom();

    private AkaDigest() { }

    /** RAND and AUTN from a challenge's nonce. */
    public record Challenge(byte[] rand, byte[] autn) {
        public static Challenge ofNonce(String nonce) {
            byte[] raw;
            try {
                raw = Base64.getDecoder().decode(nonce == null ? "" : nonce.strip());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("the AKA nonce is not base64");
            }
            if (raw.length < 32) throw new IllegalArgumentException("the AKA nonce holds " + raw.length + " bytes, RAND and AUTN need 32");
            return new Challenge(Arrays.copyOfRange(raw, 0, 16), Arrays.copyOfRange(raw, 16, 32));
        }
    }

    /** The parameters of the Authorization header answering one challenge. */
    public record Answer(String username, String realm, String nonce, String uri, String response, String algorithm,
                         String qop, String cnonce, String nc, String opaque, String auts) { }

    /**
     * The answer to a challenge: password = RES, or empty with AUTS. qop: the challenge's qop list; "auth"
     * is used when offered (auth-int is not), none otherwise (RFC 2069 form).
     */
    public static Answer answer(String impi, String realm, String nonce, String uri, String method, String qopOffered,
                                String opaque, byte[] res, byte[] auts) {
        byte[] password = auts != null ? new byte[0] : res;
        boolean auth = qopOffered != null && Arrays.stream(qopOffered.split(",")).map(String::strip).anyMatch("auth"::equals);
        String ha1 = md5(concat((impi + ":" + realm + ":").getBytes(StandardCharsets.UTF_8), password));
        String ha2 = md5((method + ":" + uri).getBytes(StandardCharsets.UTF_8));
        String cnonce = null, nc = null, response;
        if (auth) {
            byte[] c = new byte[8];
            RANDOM.nextBytes(c);
            cnonce = HexFormat.of().formatHex(c);
            nc = "00000001";
            response = md5((ha1 + ":" + nonce + ":" + nc + ":" + cnonce + ":auth:" + ha2).getBytes(StandardCharsets.UTF_8));
        } else {
            response = md5((ha1 + ":" + nonce + ":" + ha2).getBytes(StandardCharsets.UTF_8));
        }
        return new Answer(impi, realm, nonce, uri, response, ALGORITHM, auth ? "auth" : null, cnonce, nc, opaque,
                auts == null ? null : Base64.getEncoder().encodeToString(auts));
    }

    /** The Authorization header value (without the header name) for an answer. */
    public static String header(Answer a) {
        StringBuilder s = new StringBuilder("Digest username=\"").append(a.username()).append('"')
                .append(", realm=\"").append(a.realm()).append('"')
                .append(", nonce=\"").append(a.nonce()).append('"')
                .append(", uri=\"").append(a.uri()).append('"')
                .append(", response=\"").append(a.response()).append('"')
                .append(", algorithm=").append(a.algorithm());
        if (a.qop() != null) s.append(", qop=").append(a.qop()).append(", nc=").append(a.nc()).append(", cnonce=\"").append(a.cnonce()).append('"');
        if (a.opaque() != null) s.append(", opaque=\"").append(a.opaque()).append('"');
        if (a.auts() != null) s.append(", auts=\"").append(a.auts()).append('"');
        return s.toString();
    }

    /** The first REGISTER's Authorization (TS 24.229 §5.1.1.2.1): the IMPI, empty nonce and response. */
    public static String initialHeader(String impi, String realm, String uri) {
        return "Digest username=\"" + impi + "\", realm=\"" + realm + "\", nonce=\"\", uri=\"" + uri + "\", response=\"\"";
    }

    static String md5(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is not available", e);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}

package org.webrtcims.gw.sip.aka;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

import static org.junit.jupiter.api.Assertions.*;
import static org.webrtcims.gw.sip.aka.MilenageTest.h;

/** RFC 3310 digest with RES as the password; the expected values are computed independently here. */
class AkaDigestTest {
    static final byte[] RES = h("a54211d5e3ba50bf");

    @Test
    void nonceSplitsIntoRandAndAutn() {
        byte[] raw = new byte[40];
        for (int i = 0; i < raw.length; i++) raw[i] = (byte) i;
        AkaDigest.Challenge c = AkaDigest.Challenge.ofNonce(Base64.getEncoder().encodeToString(raw));
        assertEquals(0, c.rand()[0]);
        assertEquals(15, c.rand()[15]);
        assertEquals(16, c.autn()[0]);
        assertEquals(31, c.autn()[15]);
        assertThrows(IllegalArgumentException.class, () -> AkaDigest.Challenge.ofNonce(Base64.getEncoder().encodeToString(new byte[31])));
        assertThrows(IllegalArgumentException.class, () -> AkaDigest.Challenge.ofNonce("***"));
    }

    @Test
    void responseWithQopAuthUsesResOctetsAsPassword() {
        AkaDigest.Answer a = AkaDigest.answer("alice@ims.lab", "ims.lab", "NONCE", "sip:ims.lab", "REGISTER", "auth,auth-int", null, RES, null);
        assertEquals("auth", a.qop());
        assertEquals("00000001", a.nc());
        byte[] prefix = "alice@ims.lab:ims.lab:".getBytes(StandardCharsets.US_ASCII);
        byte[] in = new byte[prefix.length + RES.length];
        System.arraycopy(prefix, 0, in, 0, prefix.length);
        System.arraycopy(RES, 0, in, prefix.length, RES.length);
        String ha1 = AkaDigest.md5(in), ha2 = AkaDigest.md5("REGISTER:sip:ims.lab".getBytes(StandardCharsets.US_ASCII));
        assertEquals(AkaDigest.md5((ha1 + ":NONCE:00000001:" + a.cnonce() + ":auth:" + ha2).getBytes(StandardCharsets.US_ASCII)), a.response());
        assertNull(a.auts());
        String header = AkaDigest.header(a);
        assertTrue(header.startsWith("Digest username=\"alice@ims.lab\", realm=\"ims.lab\", nonce=\"NONCE\""), header);
        assertTrue(header.contains("algorithm=AKAv1-MD5") && header.contains("qop=auth") && header.contains("response=\"" + a.response() + "\""), header);
    }

    @Test
    void withoutQopTheRfc2069FormIsUsed() {
        AkaDigest.Answer a = AkaDigest.answer("u@r", "r", "N", "sip:r", "REGISTER", null, "OPQ", RES, null);
        assertNull(a.qop());
        assertNull(a.cnonce());
        assertEquals(32, a.response().length());
        assertTrue(AkaDigest.header(a).endsWith(", opaque=\"OPQ\""));
    }

    @Test
    void resyncAnswerHasAutsAndAnEmptyPassword() {
        byte[] auts = h("0102030405060708090a0b0c0d0e");
        AkaDigest.Answer a = AkaDigest.answer("u@r", "r", "N", "sip:r", "REGISTER", null, null, RES, auts);
        String ha1 = AkaDigest.md5("u@r:r:".getBytes(StandardCharsets.US_ASCII));
        String ha2 = AkaDigest.md5("REGISTER:sip:r".getBytes(StandardCharsets.US_ASCII));
        assertEquals(AkaDigest.md5((ha1 + ":N:" + ha2).getBytes(StandardCharsets.US_ASCII)), a.response());
        assertEquals(Base64.getEncoder().encodeToString(auts), a.auts());
        assertTrue(AkaDigest.header(a).endsWith(", auts=\"" + a.auts() + "\""));
    }

    @Test
    void initialHeaderNamesTheImpi() {
        assertEquals("Digest username=\"alice@ims.lab\", realm=\"ims.lab\", nonce=\"\", uri=\"sip:ims.lab\", response=\"\"",
                AkaDigest.initialHeader("alice@ims.lab", "ims.lab", "sip:ims.lab"));
    }
}

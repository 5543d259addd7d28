package org.webrtcims.gw.api;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.*;

class WicTokensTest {
    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private final AtomicLong now = new AtomicLong(1_800_000_000_000L);
    private final WicTokens tokens = new WicTokens(KEY, 300, "ims.lab", now::get);

    @Test
    void issuedTokenVerifiesWithItsSubjectAndLogin() {
        WicTokens.Token t = tokens.issue("sip:alice@ims.lab", 1_800_043_200L);
        assertEquals(1_800_000_300L, t.expiresAt(), "expiry is now + ttl when the login lasts longer");
        WicTokens.Verified v = tokens.verify(t.jwt()).orElseThrow(() -> new AssertionError("a fresh token must verify"));
        assertEquals("sip:alice@ims.lab", v.impu());
        assertEquals(1_800_043_200L, v.loginExp());
    }

    @Test
    void expiryNeverPassesTheLogin() {
        WicTokens.Token t = tokens.issue("sip:alice@ims.lab", 1_800_000_100L);
        assertEquals(1_800_000_100L, t.expiresAt(), "a token must not outlive the login it comes from");
    }

    @Test
    void expiredTokenIsRefused() {
        WicTokens.Token t = tokens.issue("sip:alice@ims.lab", 1_800_043_200L);
        now.addAndGet(300_000);
        assertTrue(tokens.verify(t.jwt()).isEmpty(), "a token at its expiry must no longer verify");
    }

    @Test
    void otherKeyOrDomainIsRefused() {
        WicTokens.Token t = tokens.issue("sip:alice@ims.lab", 1_800_043_200L);
        WicTokens otherKey = new WicTokens("fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.US_ASCII), 300, "ims.lab", now::get);
        assertTrue(otherKey.verify(t.jwt()).isEmpty(), "a token signed with another key must not verify");
        WicTokens otherDomain = new WicTokens(KEY, 300, "other.lab", now::get);
        assertTrue(otherDomain.verify(t.jwt()).isEmpty(), "a token for another domain (aud) must not verify");
    }

    @Test
    void tamperedOrUnsignedTokenIsRefused() {
        String[] parts = tokens.issue("sip:alice@ims.lab", 1_800_043_200L).jwt().split("\\.");
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String payload = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8).replace("alice", "mallory");
        String forged = parts[0] + "." + b64.encodeToString(payload.getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
        assertTrue(tokens.verify(forged).isEmpty(), "a token whose subject was changed must not verify");
        String none = b64.encodeToString("{\"alg\":\"none\"}".getBytes(StandardCharsets.UTF_8)) + "." + parts[1] + ".";
        assertTrue(tokens.verify(none).isEmpty(), "an unsigned (alg none) token must not verify");
        assertTrue(tokens.verify("not-a-jwt").isEmpty(), "garbage must not verify");
        assertTrue(tokens.verify(null).isEmpty(), "no token must not verify");
    }

    @Test
    void keyFileMustHoldAnHs256Key() throws Exception {
        Path f = Files.createTempFile("wic", ".key");
        try {
            Files.write(f, new byte[16]);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> WicTokens.readKey(f.toString()));
            assertTrue(e.getMessage().contains("32"), "the error must say how long the key must be: " + e.getMessage());
            assertNull(WicTokens.readKey(""), "no key file: tokens off");
            assertFalse(new WicTokens(null, 300, "ims.lab", now::get).enabled(), "no key: not enabled");
        } finally {
            Files.delete(f);
        }
    }
}

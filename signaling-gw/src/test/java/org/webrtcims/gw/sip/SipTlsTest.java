package org.webrtcims.gw.sip;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.KeyStore;
import java.util.Properties;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.webrtcims.gw.config.GatewayProperties;

import static org.junit.jupiter.api.Assertions.*;

/** SIP over TLS settings from PEM files: the PKCS#12 stores JAIN-SIP gets, and the errors a user sees. */
class SipTlsTest {
    @TempDir Path dir;

    private Path pem() throws Exception {
        // openssl is one of the lab's base tools (harness/lib/tls-cert.sh uses it too)
        Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1", "-keyout", dir.resolve("k.pem").toString(),
                "-out", dir.resolve("c.pem").toString()).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertEquals(0, p.waitFor(), "openssl req failed");
        return dir;
    }

    @Test
    void pemFilesBecomeKeyAndTrustStoresOfThisProcessOnly() throws Exception {
        pem();
        GatewayProperties.Tls tls = new GatewayProperties.Tls();
        tls.setCertificate(dir.resolve("c.pem").toString());
        tls.setPrivateKey(dir.resolve("k.pem").toString());
        tls.setTrust(dir.resolve("c.pem").toString());
        Properties p = new Properties();
        SipTls.configure(p, tls);
        char[] pass = p.getProperty("javax.net.ssl.keyStorePassword").toCharArray();
        assertTrue(pass.length >= 24, "a random password");
        Path keys = Path.of(p.getProperty("javax.net.ssl.keyStore"));
        Path trust = Path.of(p.getProperty("javax.net.ssl.trustStore"));
        assertEquals(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE), Files.getPosixFilePermissions(keys));
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keys)) { ks.load(in, pass); }
        assertTrue(ks.isKeyEntry("gateway"));
        assertNotNull(ks.getKey("gateway", pass));
        KeyStore ts = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(trust)) { ts.load(in, p.getProperty("javax.net.ssl.trustStorePassword").toCharArray()); }
        assertTrue(ts.isCertificateEntry("trusted-0"));
        assertEquals("Disabled", p.getProperty("gov.nist.javax.sip.TLS_CLIENT_AUTH_TYPE"));
        assertTrue(p.getProperty("gov.nist.javax.sip.ENABLED_CIPHER_SUITES").contains("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"),
                "a suite for the lab's ECDSA certificate");
    }

    @Test
    void missingOrUnreadableFilesNameTheOption() throws Exception {
        GatewayProperties.Tls tls = new GatewayProperties.Tls();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> SipTls.configure(new Properties(), tls));
        assertTrue(e.getMessage().startsWith("lab.sip.tls.certificate is required"), e.getMessage());
        pem();
        tls.setCertificate(dir.resolve("c.pem").toString());
        tls.setPrivateKey(dir.resolve("nope.pem").toString());
        tls.setTrust(dir.resolve("c.pem").toString());
        e = assertThrows(IllegalStateException.class, () -> SipTls.configure(new Properties(), tls));
        assertTrue(e.getMessage().startsWith("lab.sip.tls.private-key: cannot read"), e.getMessage());
        tls.setPrivateKey(dir.resolve("c.pem").toString()); // a certificate where the key should be
        e = assertThrows(IllegalStateException.class, () -> SipTls.configure(new Properties(), tls));
        assertTrue(e.getMessage().startsWith("lab.sip.tls.private-key: no private key"), e.getMessage());
    }
}

package org.webrtcims.gw.sip;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import java.util.Properties;

import org.springframework.boot.ssl.pem.PemContent;
import org.webrtcims.gw.config.GatewayProperties;

/**
 * JAIN-SIP's TLS settings from PEM files (lab.sip.tls.*; docs/security.md "SIP over TLS"). JAIN-SIP reads
 * its key and trust material only from key store files with a password, so the PEM certificate + key and
 * the trusted certificates are written into two PKCS#12 stores of this process (temporary files, mode
 * 0600, deleted on exit) under a random password that exists only in memory.
 */
final class SipTls {
    static final List<String> CIPHER_SUITES = List.of(
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256");

    private SipTls() {}

    /** Adds the stack properties for TLS to p; throws IllegalStateException with a readable reason. */
    static void configure(Properties p, GatewayProperties.Tls tls) {
        PemContent cert = load("lab.sip.tls.certificate", tls.getCertificate());
        PemContent key = load("lab.sip.tls.private-key", tls.getPrivateKey());
        PemContent trust = load("lab.sip.tls.trust", tls.getTrust());
        try {
            List<X509Certificate> chain = certificates(cert, "lab.sip.tls.certificate", tls.getCertificate());
            PrivateKey privateKey;
            try {
                privateKey = key.getPrivateKey();
            } catch (RuntimeException e) {
                privateKey = null;
            }
            List<X509Certificate> trusted = certificates(trust, "lab.sip.tls.trust", tls.getTrust());
            if (chain == null || chain.isEmpty()) throw new IllegalStateException("lab.sip.tls.certificate: no certificate in " + tls.getCertificate());
            if (privateKey == null) throw new IllegalStateException("lab.sip.tls.private-key: no private key in " + tls.getPrivateKey());
            if (trusted == null || trusted.isEmpty()) throw new IllegalStateException("lab.sip.tls.trust: no certificate in " + tls.getTrust());
            byte[] raw = new byte[24];
            new SecureRandom().nextBytes(raw);
            char[] password = Base64.getUrlEncoder().withoutPadding().encodeToString(raw).toCharArray();
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("gateway", privateKey, password, chain.toArray(new X509Certificate[0]));
            KeyStore trustStore = KeyStore.getInstance("PKCS12");
            trustStore.load(null, null);
            for (int i = 0; i < trusted.size(); i++) trustStore.setCertificateEntry("trusted-" + i, trusted.get(i));
            String pass = new String(password);
            p.setProperty("javax.net.ssl.keyStore", store(keys, password, "sip-tls-key").toString());
            p.setProperty("javax.net.ssl.keyStorePassword", pass);
            p.setProperty("javax.net.ssl.keyStoreType", "PKCS12");
            p.setProperty("javax.net.ssl.trustStore", store(trustStore, password, "sip-tls-trust").toString());
            p.setProperty("javax.net.ssl.trustStorePassword", pass);
            p.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
            // Kamailio presents no client certificate: the gateway's TLS server side does not ask for one
            p.setProperty("gov.nist.javax.sip.TLS_CLIENT_AUTH_TYPE", "Disabled");
            p.setProperty("gov.nist.javax.sip.TLS_CLIENT_PROTOCOLS", "TLSv1.2");
            // JAIN-SIP's default list (RSA key exchange, anonymous DH) has nothing for an ECDSA key ("no cipher
            // suites in common" when Kamailio connects): forward-secret AEAD suites for ECDSA and RSA keys
            p.setProperty("gov.nist.javax.sip.ENABLED_CIPHER_SUITES", String.join(",", CIPHER_SUITES));
            p.setProperty("gov.nist.javax.sip.SSL_HANDSHAKE_TIMEOUT", "5000");
        } catch (IllegalStateException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("SIP over TLS: cannot set up the key stores: " + e.getMessage(), e);
        }
    }

    private static List<X509Certificate> certificates(PemContent pem, String option, String file) {
        try {
            return pem.getCertificates();
        } catch (RuntimeException e) {
            throw new IllegalStateException(option + ": no readable certificate in " + file + " (" + e.getMessage() + ")", e);
        }
    }

    private static PemContent load(String option, String file) {
        if (file == null || file.isBlank()) throw new IllegalStateException(option + " is required with lab.ims.transport=tls (a PEM file)");
        try {
            return PemContent.load(Path.of(file));
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException(option + ": cannot read '" + file + "' (" + e.getMessage() + ")", e);
        }
    }

    private static Path store(KeyStore ks, char[] password, String prefix) throws Exception {
        Path f = Files.createTempFile(prefix, ".p12", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        f.toFile().deleteOnExit();
        try (OutputStream out = Files.newOutputStream(f)) {
            ks.store(out, password);
        }
        return f;
    }
}

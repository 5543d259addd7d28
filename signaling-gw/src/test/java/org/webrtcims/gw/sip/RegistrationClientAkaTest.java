package org.webrtcims.gw.sip;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.sip.aka.Milenage;

import javax.sip.ClientTransaction;
import javax.sip.ResponseEvent;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.*;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.*;

/**
 * RegistrationClient as an IMS-AKA UE against a registrar played here: the test builds each 401 from its own
 * Milenage network side (RAND, AUTN = SQN ⊕ AK ‖ AMF ‖ MAC-A) and checks every REGISTER the client sends
 * (the IMPI, the RFC 3310 response from XRES, the AUTS of a resync) on the real JAIN-SIP messages.
 */
class RegistrationClientAkaTest {
    static final HexFormat HEX = HexFormat.of();
    static final byte[] K = HEX.parseHex("019b6cd8b6a57181ba1e1f8e476f10ea"), OPC = HEX.parseHex("cedbd2809f80ab557b852dd9e0aefe63");
    static final byte[] AMF = HEX.parseHex("8000");
    final Milenage network = new Milenage(K, OPC);
    List<Request> sent;
    PlayedRegistrar registrar;
    RegistrationClient client;
    final org.webrtcims.gw.metrics.GatewayMetrics metrics = org.webrtcims.gw.metrics.GatewayMetrics.none();

    @BeforeEach
    void setUp(@TempDir Path dir) throws Exception {
        Path creds = dir.resolve("creds.txt");
        Files.writeString(creds, String.join("\n",
                "alice alice-secret aka alice@ims.lab sip:alice@ims.lab " + HEX.formatHex(K) + " " + HEX.formatHex(OPC) + " 8000 000000000020",
                "bob bob-secret aka bob@ims.lab sip:bob@ims.lab " + HEX.formatHex(K) + " " + HEX.formatHex(OPC) + " 8000 000000000400", ""));
        GatewayProperties props = new GatewayProperties();
        props.getIms().setCredentials(creds.toString());
        registrar = new PlayedRegistrar("reg-call-");
        sent = registrar.sent;
        SipUserAgent ua = registrar.ua;
        client = new RegistrationClient(ua, new SipRequests(ua, props), props, metrics, new ContactUsers());
    }

    byte[] rand(int seed) {
        byte[] r = new byte[16];
        new Random(seed).nextBytes(r);
        return r;
    }

    String nonce(byte[] rand, long sqn, Milenage net) {
        byte[] s = new byte[6];
        for (int i = 5; i >= 0; i--, sqn >>>= 8) s[i] = (byte) sqn;
        byte[] ak = net.f5(rand), mac = net.f1(rand, s, AMF), all = new byte[32];
        System.arraycopy(rand, 0, all, 0, 16);
        for (int i = 0; i < 6; i++) all[16 + i] = (byte) (s[i] ^ ak[i]);
        System.arraycopy(AMF, 0, all, 22, 2);
        System.arraycopy(mac, 0, all, 24, 8);
        return Base64.getEncoder().encodeToString(all);
    }

    void answer(int index, int code, String wwwAuthenticate) {
        registrar.answer(index, code, wwwAuthenticate);
    }

    String challenge(String nonce) {
        return "Digest realm=\"ims.lab\", nonce=\"" + nonce + "\", algorithm=AKAv1-MD5, qop=\"auth,auth-int\"";
    }

    static Map<String, String> authorization(Request r) {
        String h = r.getHeader("Authorization").toString().trim();
        assertTrue(h.startsWith("Authorization: Digest "), h);
        Map<String, String> p = new HashMap<>();
        Matcher m = Pattern.compile("([a-z-]+)=(?:\"([^\"]*)\"|([^,\\s]+))").matcher(h.substring(21));
        while (m.find()) p.put(m.group(1), m.group(2) != null ? m.group(2) : m.group(3));
        return p;
    }

    static String md5(byte[]... parts) throws Exception {
        MessageDigest d = MessageDigest.getInstance("MD5");
        for (byte[] p : parts) d.update(p);
        return HEX.formatHex(d.digest());
    }

    /** RFC 3310 / RFC 2617 response with qop=auth, computed independently of AkaDigest. */
    static String expectedResponse(Map<String, String> a, byte[] password) throws Exception {
        String ha1 = md5((a.get("username") + ":" + a.get("realm") + ":").getBytes(StandardCharsets.UTF_8), password);
        String ha2 = md5(("REGISTER:" + a.get("uri")).getBytes(StandardCharsets.UTF_8));
        return md5((ha1 + ":" + a.get("nonce") + ":" + a.get("nc") + ":" + a.get("cnonce") + ":auth:" + ha2).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void registersWithAkaAnsweringTheChallengeWithRes() throws Exception {
        CompletableFuture<Void> done = client.register("alice", "alice-secret");
        assertEquals(1, sent.size());
        Request first = sent.get(0);
        assertTrue(first.getHeader("From").toString().contains("<sip:alice@ims.lab>"), first.toString());
        Map<String, String> a0 = authorization(first);
        assertEquals("alice@ims.lab", a0.get("username"), "TS 24.229: the IMPI in the first REGISTER");
        assertEquals("", a0.get("response"));
        assertEquals("", a0.get("nonce"));

        byte[] rand = rand(1);
        answer(0, 401, challenge(nonce(rand, 0x21, network)));
        assertEquals(2, sent.size());
        Map<String, String> a1 = authorization(sent.get(1));
        assertEquals("AKAv1-MD5", a1.get("algorithm"));
        assertEquals("auth", a1.get("qop"));
        assertEquals(expectedResponse(a1, network.f2(rand)), a1.get("response"), "MD5 digest with XRES as the password");
        assertNull(a1.get("auts"));
        assertEquals(first.getHeader("Call-ID").toString(), sent.get(1).getHeader("Call-ID").toString(), "same Call-ID");

        answer(1, 200, null);
        done.get();
        RegistrationClient.Status s = client.status("alice").orElseThrow();
        assertEquals("AKAv1-MD5", s.auth());
        assertEquals("alice@ims.lab", s.impi());
        assertEquals("sip:alice@ims.lab", s.impu());
        var m = metrics.registry();
        assertEquals(2, m.find("gw.register.requests").tag("kind", "initial").counter().count(), "both REGISTERs");
        assertEquals(1, m.find("gw.registrations.completed").tags("kind", "initial", "result", "ok").counter().count());
        assertEquals(1, m.find("gw.registrations").gauge().value());
        assertEquals(List.of("sent REGISTER", "recv 401 (AKAv1-MD5)", "sent REGISTER (AKA response)", "recv 200"), s.sipFlow());
    }

    @Test
    void aStaleSqnIsResynchronisedWithAuts() throws Exception {
        CompletableFuture<Void> done = client.register("bob", "bob-secret"); // the USIM's SQN_MS is 0x400
        byte[] rand = rand(2);
        answer(0, 401, challenge(nonce(rand, 0x21, network)));
        Map<String, String> a1 = authorization(sent.get(1));
        byte[] auts = Base64.getDecoder().decode(a1.get("auts"));
        // the HSS side: SQN_MS = AUTS[0..6] ⊕ f5*(RAND), MAC-S = f1*(SQN_MS, AMF 0000)
        byte[] sqnMs = new byte[6], akStar = network.f5star(rand);
        for (int i = 0; i < 6; i++) sqnMs[i] = (byte) (auts[i] ^ akStar[i]);
        assertEquals("000000000400", HEX.formatHex(sqnMs));
        assertArrayEquals(network.f1star(rand, sqnMs, new byte[2]), Arrays.copyOfRange(auts, 6, 14));
        assertEquals(expectedResponse(a1, new byte[0]), a1.get("response"), "RFC 3310 §3.4: empty password with AUTS");

        byte[] rand2 = rand(3);
        answer(1, 401, challenge(nonce(rand2, 0x401, network)));
        Map<String, String> a2 = authorization(sent.get(2));
        assertNull(a2.get("auts"));
        assertEquals(expectedResponse(a2, network.f2(rand2)), a2.get("response"));
        answer(2, 200, null);
        done.get();
        assertEquals(List.of("sent REGISTER", "recv 401 (AKAv1-MD5)", "sent REGISTER (AUTS resync)", "recv 401 (AKAv1-MD5)",
                "sent REGISTER (AKA response)", "recv 200"), client.status("bob").orElseThrow().sipFlow());
    }

    @Test
    void aNetworkThatFailsAuthenticationIsRefused() throws Exception {
        CompletableFuture<Void> done = client.register("alice", "alice-secret");
        Milenage impostor = new Milenage(HEX.parseHex("0396eb317b6d1c36f19c1c84cd6ffd16"), OPC);
        answer(0, 401, challenge(nonce(rand(4), 0x21, impostor)));
        RegistrationException e = failure(done);
        assertEquals(RegistrationException.Kind.AUTH_FAILED, e.kind());
        assertTrue(e.getMessage().contains("MAC-A"), e.getMessage());
        assertEquals(1, sent.size(), "no answer to a network that failed authentication");
        assertTrue(client.status("alice").isEmpty());
        assertEquals(1, metrics.registry().find("gw.registrations.completed").tags("kind", "initial", "result", "failed")
                .counter().count());
        assertEquals(0, metrics.registry().find("gw.registrations").gauge().value());
    }

    @Test
    void aSecondSyncFailureOrAnMd5ChallengeEndsTheRegistration() throws Exception {
        CompletableFuture<Void> done = client.register("bob", "bob-secret");
        answer(0, 401, challenge(nonce(rand(5), 0x21, network)));
        answer(1, 401, challenge(nonce(rand(6), 0x22, network))); // the network did not resync
        assertEquals(RegistrationException.Kind.AUTH_FAILED, failure(done).kind());

        CompletableFuture<Void> md5 = client.register("alice", "alice-secret");
        answer(sent.size() - 1, 401, "Digest realm=\"ims.lab\", nonce=\"abc\", algorithm=MD5");
        RegistrationException e = failure(md5);
        assertEquals(RegistrationException.Kind.REJECTED, e.kind());
        assertTrue(e.getMessage().contains("does not ask for AKAv1-MD5"), e.getMessage());
    }

    @Test
    void theWebPasswordIsCheckedBeforeAnythingIsSent() {
        for (String[] c : new String[][] {{"alice", "wrong"}, {"alice", null}, {"carol", "carol-secret"}}) {
            RegistrationException e = failure(client.register(c[0], c[1]));
            assertEquals(RegistrationException.Kind.AUTH_FAILED, e.kind());
            assertThrows(RegistrationException.class, () -> client.checkLogin(c[0], c[1]));
        }
        assertEquals(List.of(), sent);
        assertEquals("alice", client.checkLogin("alice", "alice-secret").login());
    }

    static RegistrationException failure(CompletableFuture<Void> f) {
        ExecutionException e = assertThrows(ExecutionException.class, f::get);
        return assertInstanceOf(RegistrationException.class, e.getCause());
    }
}

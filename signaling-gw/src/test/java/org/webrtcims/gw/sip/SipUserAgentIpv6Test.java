package org.webrtcims.gw.sip;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.webrtcims.gw.config.GatewayProperties;

import javax.sip.ResponseEvent;
import javax.sip.message.Request;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The gateway's real JAIN-SIP stack on an IPv6 address (Gm over IPv6, issue #23): it listens on [::1] over UDP and
 * TCP, answers a P-CSCF there, and its own requests carry bracketed Via/Contact/Route. Needs the IPv6 loopback
 * (every Linux host has it unless IPv6 is switched off; then the test is skipped and says so).
 */
class SipUserAgentIpv6Test {
    private static final InetAddress V6_LOOPBACK = v6Loopback();
    private SipUserAgent ua;
    private DatagramSocket pcscf;

    private static InetAddress v6Loopback() {
        try {
            return InetAddress.getByName("::1");
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean ipv6Loopback() {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(V6_LOOPBACK, 0))) {
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private static int freePort() throws Exception {
        try (java.net.ServerSocket t = new java.net.ServerSocket(0, 1, V6_LOOPBACK); DatagramSocket u = new DatagramSocket(new InetSocketAddress(V6_LOOPBACK, t.getLocalPort()))) {
            return t.getLocalPort();
        }
    }

    @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir;

    private GatewayProperties start() throws Exception {
        return start(new GatewayProperties());
    }

    private GatewayProperties start(GatewayProperties props) throws Exception {
        Assumptions.assumeTrue(ipv6Loopback(), "no IPv6 loopback (::1) on this host");
        pcscf = new DatagramSocket(new InetSocketAddress(V6_LOOPBACK, 0));
        pcscf.setSoTimeout(5000);
        props.getSip().setHost("[::1]"); // as an operator writes it; the stack takes it without brackets
        props.getSip().setPort(freePort());
        props.getIms().setProxy("[::1]:" + pcscf.getLocalPort());
        ua = new SipUserAgent(props, new Pcscf(props));
        return props;
    }

    @AfterEach
    void stop() {
        if (ua != null) ua.stop();
        if (pcscf != null) pcscf.close();
    }

    private static String options(String transport, int fromPort, int toPort) {
        return "OPTIONS sip:[::1]:" + toPort + " SIP/2.0\r\n"
                + "Via: SIP/2.0/" + transport + " [::1]:" + fromPort + ";branch=z9hG4bK-v6-" + transport + "\r\n"
                + "Max-Forwards: 70\r\nFrom: <sip:pcscf@ims.lab>;tag=p1\r\nTo: <sip:[::1]:" + toPort + ">\r\n"
                + "Call-ID: v6-" + transport + "@pcscf\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n";
    }

    @Test
    void answersTheIpv6PcscfOverUdpAndTcp() throws Exception {
        GatewayProperties props = start();
        int port = props.getSip().getPort();
        byte[] out = options("UDP", pcscf.getLocalPort(), port).getBytes(StandardCharsets.US_ASCII);
        pcscf.send(new DatagramPacket(out, out.length, new InetSocketAddress(V6_LOOPBACK, port)));
        DatagramPacket in = new DatagramPacket(new byte[4096], 4096);
        pcscf.receive(in);
        String answer = new String(in.getData(), 0, in.getLength(), StandardCharsets.US_ASCII);
        assertTrue(answer.startsWith("SIP/2.0 200 "), "OPTIONS from the IPv6 P-CSCF over UDP answered 200:\n" + answer);
        assertTrue(answer.contains("Via: SIP/2.0/UDP [::1]:" + pcscf.getLocalPort()), "the Via comes back bracketed:\n" + answer);

        try (Socket tcp = new Socket()) {
            tcp.connect(new InetSocketAddress(V6_LOOPBACK, port), 3000);
            tcp.setSoTimeout(5000);
            OutputStream o = tcp.getOutputStream();
            o.write(options("TCP", tcp.getLocalPort(), port).getBytes(StandardCharsets.US_ASCII));
            o.flush();
            InputStream i = tcp.getInputStream();
            byte[] buf = new byte[4096];
            int n = i.read(buf);
            String tcpAnswer = n < 0 ? "(connection closed)" : new String(buf, 0, n, StandardCharsets.US_ASCII);
            assertTrue(tcpAnswer.startsWith("SIP/2.0 200 "), "OPTIONS over TCP on [::1] answered 200:\n" + tcpAnswer);
        }
    }

    @Test
    void answersOverTlsOnIpv6() throws Exception {
        // openssl is one of the lab's base tools (SipTlsTest, harness/lib/tls-cert.sh)
        Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-days", "2", "-subj", "/CN=::1", "-addext", "subjectAltName=IP:::1", "-keyout", dir.resolve("k.pem").toString(),
                "-out", dir.resolve("c.pem").toString()).redirectErrorStream(true).start();
        String opensslOut = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), "openssl req failed: " + opensslOut);
        GatewayProperties props = new GatewayProperties();
        props.getIms().setTransport("tls");
        props.getSip().getTls().setCertificate(dir.resolve("c.pem").toString());
        props.getSip().getTls().setPrivateKey(dir.resolve("k.pem").toString());
        props.getSip().getTls().setTrust(dir.resolve("c.pem").toString());
        start(props);
        int port = props.getSip().getPort();
        java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(dir.resolve("c.pem"))) {
            trust.setCertificateEntry("gw", java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        try (javax.net.ssl.SSLSocket tls = (javax.net.ssl.SSLSocket) ctx.getSocketFactory().createSocket()) {
            tls.connect(new InetSocketAddress(V6_LOOPBACK, port), 3000);
            tls.setSoTimeout(5000);
            tls.startHandshake();
            OutputStream o = tls.getOutputStream();
            o.write(options("TLS", tls.getLocalPort(), port).getBytes(StandardCharsets.US_ASCII));
            o.flush();
            byte[] buf = new byte[4096];
            int n = tls.getInputStream().read(buf);
            String answer = n < 0 ? "(connection closed)" : new String(buf, 0, n, StandardCharsets.US_ASCII);
            assertTrue(answer.startsWith("SIP/2.0 200 "), "OPTIONS over TLS on [::1] answered 200:\n" + answer);
        }
    }

    @Test
    void itsOwnRequestsReachTheIpv6PcscfWithBracketedHeaders() throws Exception {
        GatewayProperties props = start();
        SipRequests requests = new SipRequests(ua, props, ua.pcscf());
        javax.sip.address.SipURI target = requests.proxyUri();
        Request options = requests.newRequest(Request.OPTIONS, target, requests.aor("alice"), "t1",
                SipFixtures.ADDRESSES.createAddress(target), ua.newCallId(), 1, "w0v6");
        CompletableFuture<Integer> status = new CompletableFuture<>();
        ua.sendRequest(options, new ResponseHandler() {
            @Override public void onResponse(ResponseEvent event) { status.complete(event.getResponse().getStatusCode()); }
            @Override public void onTimeout() { status.complete(-1); }
        });
        DatagramPacket in = new DatagramPacket(new byte[4096], 4096);
        pcscf.receive(in);
        String wire = new String(in.getData(), 0, in.getLength(), StandardCharsets.US_ASCII);
        int port = props.getSip().getPort();
        assertTrue(wire.startsWith("OPTIONS sip:[::1]:" + pcscf.getLocalPort()), "Request-URI to the bracketed P-CSCF:\n" + wire);
        assertTrue(wire.contains("Via: SIP/2.0/UDP [::1]:" + port + ";"), "Via sent-by bracketed:\n" + wire);
        assertTrue(wire.contains("Contact: <sip:w0v6@[::1]:" + port + ";"), "Contact bracketed:\n" + wire);
        assertTrue(wire.contains("Route: <sip:[::1]:" + pcscf.getLocalPort() + ";lr"), "Route bracketed:\n" + wire);
        // answer it: the stack matches the response to its transaction over IPv6
        javax.sip.message.Message req = SipFixtures.parse(wire);
        String ok = SipFixtures.MESSAGES.createResponse(200, (Request) req).toString();
        byte[] b = ok.getBytes(StandardCharsets.US_ASCII);
        pcscf.send(new DatagramPacket(b, b.length, in.getSocketAddress()));
        assertEquals(200, status.get(5, TimeUnit.SECONDS), "the 200 from the IPv6 P-CSCF reaches the request's handler");
    }
}

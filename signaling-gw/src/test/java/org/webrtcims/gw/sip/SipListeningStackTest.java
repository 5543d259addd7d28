package org.webrtcims.gw.sip;

import org.junit.jupiter.api.Test;
import org.webrtcims.gw.config.GatewayProperties;

import javax.sip.DialogTerminatedEvent;
import javax.sip.IOExceptionEvent;
import javax.sip.RequestEvent;
import javax.sip.ResponseEvent;
import javax.sip.SipListener;
import javax.sip.TimeoutEvent;
import javax.sip.TransactionTerminatedEvent;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.*;

/** The gateway's JAIN-SIP stack: its settings, the transport check, and its listening points on a real loopback port. */
class SipListeningStackTest {
    private static final SipListener NONE = new SipListener() {
        @Override public void processRequest(RequestEvent e) { }
        @Override public void processResponse(ResponseEvent e) { }
        @Override public void processTimeout(TimeoutEvent e) { }
        @Override public void processIOException(IOExceptionEvent e) { }
        @Override public void processTransactionTerminated(TransactionTerminatedEvent e) { }
        @Override public void processDialogTerminated(DialogTerminatedEvent e) { }
    };

    private static int freePort() throws Exception {
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        try (java.net.ServerSocket t = new java.net.ServerSocket(0, 1, lo); DatagramSocket u = new DatagramSocket(new InetSocketAddress(lo, t.getLocalPort()))) {
            return t.getLocalPort();
        }
    }

    @Test
    void theTransportIsUdpTcpOrTlsInAnyCaseAndNothingElse() {
        assertEquals("udp", SipListeningStack.transport("udp"));
        assertEquals("tls", SipListeningStack.transport(" TLS "), "trimmed and lower-cased");
        assertEquals("tcp", SipListeningStack.transport("Tcp"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> SipListeningStack.transport("sctp"),
                "an unknown transport is refused before any stack is made");
        assertEquals("lab.ims.transport must be udp, tcp or tls, not 'sctp'", e.getMessage(), "the message names the setting");
        assertThrows(IllegalStateException.class, () -> SipListeningStack.transport(null), "no transport is refused too");
    }

    @Test
    void theStackSettingsCarryTheLimitsAndTheOrderingRules() {
        GatewayProperties props = new GatewayProperties();
        props.getSip().setMaxMessageBytes(12345);
        props.getSip().setMaxConnections(77);
        Properties p = SipListeningStack.properties(props);
        assertEquals("true", p.getProperty("gov.nist.javax.sip.REENTRANT_LISTENER"),
                "by default the handlers run on the one UDP processing thread, in arrival order (lab.sip.reentrant-listener)");
        assertEquals("1", p.getProperty("gov.nist.javax.sip.THREAD_POOL_SIZE"), "one message processor: a 180 never overtakes a 200");
        assertEquals("32", p.getProperty("gov.nist.javax.sip.MAX_FORK_TIME_SECONDS"), "RFC 3261 §13.2.2.4 fork window");
        assertEquals("true", p.getProperty("gov.nist.javax.sip.DELIVER_UNSOLICITED_NOTIFY"), "reg-event NOTIFYs reach the gateway");
        assertEquals("12345", p.getProperty("gov.nist.javax.sip.MAX_MESSAGE_SIZE"), "lab.sip.max-message-bytes");
        assertEquals("77", p.getProperty("gov.nist.javax.sip.MAX_CONNECTIONS"), "lab.sip.max-connections");
        assertEquals(StrictMessageParserFactory.class.getName(), p.getProperty("gov.nist.javax.sip.MESSAGE_PARSER_FACTORY"),
                "the strict parser marks what JAIN-SIP forgives");
        props.getSip().setReentrantListener(false);
        assertEquals("false", SipListeningStack.properties(props).getProperty("gov.nist.javax.sip.REENTRANT_LISTENER"),
                "lab.sip.reentrant-listener=false: through JAIN-SIP's EventScanner thread");
    }

    @Test
    void itListensOnUdpAndTcpAndTellsThemApartWhenTheProxyIsReachedOverUdp() throws Exception {
        GatewayProperties props = new GatewayProperties();
        props.getSip().setPort(freePort());
        SipListeningStack stack = new SipListeningStack(props);
        try {
            stack.start(NONE);
            assertEquals("127.0.0.1:" + props.getSip().getPort(), stack.where(), "where it listens");
            assertEquals("udp", stack.transportOf(stack.provider("udp")), "an event from the UDP provider came over udp");
            assertEquals("tcp", stack.transportOf(stack.provider("tcp")), "one from the stream provider over tcp, lab.ims.transport=udp or not");
            assertNotSame(stack.provider("udp"), stack.provider("tcp"), "two listening points");
            assertEquals("tcp", stack.streamTransport(), "plain TCP without lab.ims.transport=tls");
            assertEquals(0, stack.dialogCount(), "a new stack holds no dialog");
        } finally {
            stack.stop();
        }
    }

    @Test
    void aBusyPortIsAClearError() throws Exception {
        int port = freePort();
        try (DatagramSocket taken = new DatagramSocket(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port))) {
            GatewayProperties props = new GatewayProperties();
            props.getSip().setPort(port);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> new SipListeningStack(props),
                    "another socket on the SIP port stops the start");
            assertTrue(e.getMessage().startsWith("cannot listen for SIP on 127.0.0.1:" + port + " ("),
                    "the message says where: " + e.getMessage());
        }
    }
}

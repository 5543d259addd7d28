package org.webrtcims.gw.sip;

import gov.nist.javax.sip.SipStackExt;
import gov.nist.javax.sip.clientauthutils.AccountManager;
import gov.nist.javax.sip.clientauthutils.AuthenticationHelper;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.config.HostPort;

import javax.sip.ListeningPoint;
import javax.sip.SipFactory;
import javax.sip.SipListener;
import javax.sip.SipProvider;
import javax.sip.SipStack;
import javax.sip.address.AddressFactory;
import javax.sip.header.HeaderFactory;
import javax.sip.message.MessageFactory;
import java.util.Locale;
import java.util.Properties;

/**
 * The gateway's single JAIN-SIP stack and its two listening points on lab.sip.host:port (an IPv4 or IPv6
 * address, with or without brackets): UDP, and TCP or — with lab.ims.transport=tls — TLS instead. Built without a
 * listener; {@link #start} attaches it once it is ready for events.
 */
final class SipListeningStack {
    /** RFC 3261 §13.2.2.4: the fork window (MAX_FORK_TIME_SECONDS below; {@link ClientTransactions} keeps it too). */
    static final int MAX_FORK_TIME_S = 32;

    private final SipStack stack;
    private final SipProvider udp;
    /** TCP, or TLS with lab.ims.transport=tls (then there is no plain TCP listening point). */
    private final SipProvider stream;
    /** lab.ims.transport, checked: which listening points exist (udp + tcp, or udp + tls). */
    private final String transport;
    private final AddressFactory addressFactory;
    private final HeaderFactory headerFactory;
    private final MessageFactory messageFactory;
    /** Where it listens, as HOST:PORT (an IPv6 address bracketed). */
    private final String where;

    SipListeningStack(GatewayProperties props) throws Exception {
        transport = transport(props.getIms().getTransport());
        SipFactory factory = SipFactory.getInstance();
        factory.setPathName("gov.nist");
        Properties p = properties(props);
        if (transport.equals("tls")) SipTls.configure(p, props.getSip().getTls());
        stack = factory.createSipStack(p);
        addressFactory = factory.createAddressFactory();
        headerFactory = factory.createHeaderFactory();
        messageFactory = factory.createMessageFactory();
        // an IPv6 address (lab.sip.host with or without brackets) listens as itself; Via and Contact bracket it
        String host = HostPort.bare(props.getSip().getHost());
        int port = props.getSip().getPort();
        where = new HostPort(host, port).toString();
        try {
            udp = stack.createSipProvider(stack.createListeningPoint(host, port, ListeningPoint.UDP));
            stream = stack.createSipProvider(stack.createListeningPoint(host, port,
                    transport.equals("tls") ? ListeningPoint.TLS : ListeningPoint.TCP));
        } catch (Exception e) {
            stack.stop();
            throw new IllegalStateException("cannot listen for SIP on " + where + " (" + e.getMessage() + ")", e);
        }
    }

    /** lab.ims.transport as the stack takes it: udp, tcp or tls (any case, trimmed); anything else is refused. */
    static String transport(String configured) {
        String t = configured == null ? "" : configured.trim().toLowerCase(Locale.ROOT);
        if (!t.equals("udp") && !t.equals("tcp") && !t.equals("tls")) {
            throw new IllegalStateException("lab.ims.transport must be udp, tcp or tls, not '" + configured + "'");
        }
        return t;
    }

    /** The stack's settings (without TLS's, {@link SipTls}). */
    static Properties properties(GatewayProperties props) {
        Properties p = new Properties();
        p.setProperty("javax.sip.STACK_NAME", "webrtc-ims-gw");
        p.setProperty("gov.nist.javax.sip.TRACE_LEVEL", "0");
        // One event at a time, in arrival order: a call's SIP flow must be recorded as it was on the wire. UDP has one
        // message processor thread (THREAD_POOL_SIZE below); with lab.sip.reentrant-listener (the default) the stack
        // calls the handlers on it, in arrival order, instead of queueing each event for its EventScanner thread: a
        // hand-off between threads less per SIP message, each a wait for the scheduler on a busy host (issue #26).
        // Timeouts come on the stack's timer thread; the call layer locks each call. The handlers never block on the
        // network except for rtpengine's sub-millisecond ng round trips.
        p.setProperty("gov.nist.javax.sip.REENTRANT_LISTENER", String.valueOf(props.getSip().isReentrantListener()));
        // One UDP message processor as well: with a pool, a 180 and a 200 arriving together could be
        // parsed in parallel and the 180 reach the transaction after the 200 (then it is dropped).
        p.setProperty("gov.nist.javax.sip.THREAD_POOL_SIZE", "1");
        // A dialog may see a 2xx retransmission after the ACK: let the stack re-ACK it.
        p.setProperty("gov.nist.javax.sip.AUTOMATIC_DIALOG_ERROR_HANDLING", "true");
        p.setProperty("gov.nist.javax.sip.CANCEL_CLIENT_TRANSACTION_CHECKED", "false");
        // A forked INVITE (RFC 3261 §13.2.2.4): responses from another fork get their own dialog, and a 2xx from a
        // fork after the first one still reaches the INVITE's handler (call/OutgoingCalls ACKs and BYEs it).
        p.setProperty("gov.nist.javax.sip.MAX_FORK_TIME_SECONDS", String.valueOf(MAX_FORK_TIME_S));
        // a reg-event NOTIFY may overtake the 200 to its SUBSCRIBE: the gateway matches NOTIFYs itself (481 when unknown)
        p.setProperty("gov.nist.javax.sip.DELIVER_UNSOLICITED_NOTIFY", "true");
        // Limits against oversized or slow senders (docs/security.md).
        p.setProperty("gov.nist.javax.sip.MAX_MESSAGE_SIZE", String.valueOf(props.getSip().getMaxMessageBytes()));
        p.setProperty("gov.nist.javax.sip.READ_TIMEOUT", String.valueOf(props.getSip().getReadTimeoutMs()));
        p.setProperty("gov.nist.javax.sip.MAX_CONNECTIONS", String.valueOf(props.getSip().getMaxConnections()));
        p.setProperty("gov.nist.javax.sip.MESSAGE_PARSER_FACTORY", StrictMessageParserFactory.class.getName());
        p.setProperty("gov.nist.javax.sip.MAX_SERVER_TRANSACTIONS", String.valueOf(props.getSip().getMaxServerTransactions()));
        return p;
    }

    /** Hands both listening points' events to listener (one at a time, as they came) and starts the stack. */
    void start(SipListener listener) throws Exception {
        udp.addSipListener(listener);
        stream.addSipListener(listener);
        stack.start();
    }

    /**
     * Stops the stack. JAIN-SIP 1.3.0-91 fills a UDP processor's channel list in its thread's run(): a stack stopped
     * before that thread ran (a start that fails at once, a test) throws a NullPointerException out of stopStack after
     * that processor was taken off the list, leaving the others running; stopping again then stops the rest.
     */
    void stop() {
        try {
            stack.stop();
        } catch (NullPointerException raceWithUdpThread) {
            stack.stop();
        }
    }

    AddressFactory addresses() { return addressFactory; }
    HeaderFactory headers() { return headerFactory; }
    MessageFactory messages() { return messageFactory; }

    /** The provider of a transport (udp, tcp or tls): UDP's, or the stream listening point's. */
    SipProvider provider(String transport) {
        return transport.equals("udp") ? udp : stream;
    }

    /** udp, tcp or tls: the listening point a request came in on (an event's source is its provider). */
    String transportOf(Object eventSource) {
        return eventSource == udp ? "udp" : streamTransport();
    }

    /** tcp or tls: the stream listening point's transport. */
    String streamTransport() { return transport.equals("tls") ? "tls" : "tcp"; }

    /** Where it listens, HOST:PORT. */
    String where() { return where; }

    /** SIP dialogs (early and confirmed) the stack holds now. */
    int dialogCount() {
        return ((gov.nist.javax.sip.stack.SIPTransactionStack) stack).getDialogs().size();
    }

    AuthenticationHelper authenticationHelper(AccountManager accounts) {
        return ((SipStackExt) stack).getAuthenticationHelper(accounts, headerFactory);
    }
}

package org.webrtcims.gw.sip;

import gov.nist.javax.sip.SipStackExt;
import gov.nist.javax.sip.clientauthutils.AccountManager;
import gov.nist.javax.sip.clientauthutils.AuthenticationHelper;
import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.metrics.SetupTimeline;

import javax.sip.*;
import javax.sip.address.AddressFactory;
import javax.sip.header.CallIdHeader;
import javax.sip.header.HeaderFactory;
import javax.sip.message.MessageFactory;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The gateway's single JAIN-SIP stack: one UDP and one TCP listening point on the same address,
 * dispatching responses to the handler of their client transaction and requests to the call layer.
 */
@Component
public class SipUserAgent implements gov.nist.javax.sip.SipListenerExt {
    private static final Logger log = LoggerFactory.getLogger(SipUserAgent.class);

    private final GatewayProperties props;
    private final SipStack stack;
    private final SipProvider udp;
    /** TCP, or TLS with lab.ims.transport=tls (then there is no plain TCP listening point). */
    private final SipProvider tcp;
    /** lab.ims.transport: which listening points exist (udp + tcp, or udp + tls). */
    private final String transport;
    /** Where the P-CSCF is, and over which transport now (RFC 3263: a domain's NAPTR picks it). */
    private final Pcscf pcscf;
    private final AddressFactory addressFactory;
    private final HeaderFactory headerFactory;
    private final MessageFactory messageFactory;
    private final Map<ClientTransaction, ResponseHandler> handlers = new ConcurrentHashMap<>();
    /** RFC 3261 §13.2.2.4: the fork window (MAX_FORK_TIME_SECONDS below). */
    static final int MAX_FORK_TIME_S = 32;
    /**
     * INVITE client transactions that ended keep their handler for the fork window: the first 2xx ends the
     * transaction (TransactionTerminated), and another fork's 2xx, which a proxy forwards too, may come after
     * it; the stack delivers it with the original transaction, and call/OutgoingCalls must ACK and BYE it.
     */
    private final Map<ClientTransaction, Lingering> forkWindow = new ConcurrentHashMap<>();
    /** The same transactions in the order they ended, which is their expiry order (one fixed window): expired
     *  ones are taken off the head, so each termination costs O(1), not a scan of the window. */
    private final java.util.Queue<ClientTransaction> forkExpiry = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private record Lingering(ResponseHandler handler, long untilNanos) { }
    private final SipSources sources;
    private volatile InboundRequestHandler inbound;
    /** NOTIFYs (the reg-event package, RegistrationClient): none = 481 to every NOTIFY. */
    private volatile java.util.function.Consumer<RequestEvent> notifyHandler;

    /** The set-up timeline (issue #26): INVITEs in and out, the IMS answer, the 200 to an MT INVITE. */
    private final SetupTimeline timeline;

    public SipUserAgent(GatewayProperties props, Pcscf pcscf) throws Exception {
        this(props, pcscf, SetupTimeline.off());
    }

    @org.springframework.beans.factory.annotation.Autowired
    public SipUserAgent(GatewayProperties props, Pcscf pcscf, SetupTimeline timeline) throws Exception {
        this.timeline = timeline;
        this.props = props;
        this.pcscf = pcscf;
        this.sources = new SipSources(props, new org.webrtcims.gw.net.LocalSockets());
        SipFactory factory = SipFactory.getInstance();
        factory.setPathName("gov.nist");
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
        String t = props.getIms().getTransport() == null ? "" : props.getIms().getTransport().trim().toLowerCase(java.util.Locale.ROOT);
        if (!t.equals("udp") && !t.equals("tcp") && !t.equals("tls")) {
            throw new IllegalStateException("lab.ims.transport must be udp, tcp or tls, not '" + props.getIms().getTransport() + "'");
        }
        transport = t;
        if (transport.equals("tls")) SipTls.configure(p, props.getSip().getTls());
        stack = factory.createSipStack(p);
        addressFactory = factory.createAddressFactory();
        headerFactory = factory.createHeaderFactory();
        messageFactory = factory.createMessageFactory();
        // an IPv6 address (lab.sip.host with or without brackets) listens as itself; Via and Contact bracket it
        String host = org.webrtcims.gw.config.HostPort.bare(props.getSip().getHost());
        int port = props.getSip().getPort();
        String where = new org.webrtcims.gw.config.HostPort(host, port).toString();
        try {
            udp = stack.createSipProvider(stack.createListeningPoint(host, port, ListeningPoint.UDP));
            tcp = stack.createSipProvider(stack.createListeningPoint(host, port,
                    transport.equals("tls") ? ListeningPoint.TLS : ListeningPoint.TCP));
        } catch (Exception e) {
            stack.stop();
            throw new IllegalStateException("cannot listen for SIP on " + where + " (" + e.getMessage() + ")", e);
        }
        udp.addSipListener(this);
        tcp.addSipListener(this);
        stack.start();
        log.info("SIP UA listening on udp+{} {}, outbound proxy {}: {} ({}), requests taken from {}", transport.equals("tls") ? "tls" : "tcp",
                where, props.getIms().getProxy(), pcscf.targets().isEmpty() ? "not found yet" : pcscf.current(),
                props.getIms().getTransport(), sources.describe());
    }

    public void setInboundHandler(InboundRequestHandler handler) { this.inbound = handler; }

    public void setNotifyHandler(java.util.function.Consumer<RequestEvent> handler) { this.notifyHandler = handler; }

    public AddressFactory addresses() { return addressFactory; }
    public HeaderFactory headers() { return headerFactory; }
    public MessageFactory messages() { return messageFactory; }

    /** The provider for the transport toward the IMS proxy now (the current P-CSCF target's). */
    public SipProvider provider() {
        return transport().equals("udp") ? udp : tcp;
    }

    /** The owner of the P-CSCF's address (resolved, current target). */
    public Pcscf pcscf() { return pcscf; }

    /** SIP dialogs (early and confirmed) the stack holds now: the soak watches it for leaks (`gw_sip_dialogs`). */
    public int dialogCount() {
        return ((gov.nist.javax.sip.stack.SIPTransactionStack) stack).getDialogs().size();
    }

    /**
     * udp, tcp or tls: the transport toward the P-CSCF now (Via, Contact and Route carry it): lab.ims.transport, or
     * with a domain as lab.ims.proxy the one its NAPTR record chose (udp or tcp; only tls with lab.ims.transport=tls).
     */
    public String transport() { return pcscf.transport(); }

    public String newCallId() { return provider().getNewCallId().getCallId(); }

    public AuthenticationHelper authenticationHelper(AccountManager accounts) {
        return ((SipStackExt) stack).getAuthenticationHelper(accounts, headerFactory);
    }

    /** Sends an out-of-dialog request in a new client transaction. */
    public ClientTransaction send(Request request, ResponseHandler handler) throws SipException {
        ClientTransaction ct = provider().getNewClientTransaction(request);
        handlers.put(ct, handler);
        handler.sending(request);
        ct.sendRequest();
        if (Request.INVITE.equals(request.getMethod())) timeline.mark(callIdOf(request), SetupTimeline.Mark.INVITE_SENT);
        return ct;
    }

    /** A response went on its server transaction: a 2xx to an INVITE marks the call's set-up timeline (MT: 200 sent). */
    public void responded(ServerTransaction st, Response r) {
        if (r.getStatusCode() / 100 == 2 && st.getRequest() != null && Request.INVITE.equals(st.getRequest().getMethod())) {
            timeline.mark(callIdOf(r), SetupTimeline.Mark.OK_SENT);
        }
    }

    private static String callIdOf(javax.sip.message.Message m) {
        return m.getHeader(CallIdHeader.NAME) instanceof CallIdHeader id ? id.getCallId() : null;
    }

    /** Sends a request that the dialog built (BYE, re-INVITE …) through that dialog. */
    public ClientTransaction sendInDialog(Dialog dialog, Request request, ResponseHandler handler) throws SipException {
        ClientTransaction ct = providerOf(dialog).getNewClientTransaction(request);
        if (handler != null) {
            handlers.put(ct, handler);
            handler.sending(request);
        }
        dialog.sendRequest(ct);
        return ct;
    }

    /** Tracks a transaction made elsewhere (e.g. by the authentication helper) and sends it. */
    public void sendPrepared(ClientTransaction ct, ResponseHandler handler) throws SipException {
        handlers.put(ct, handler);
        handler.sending(ct.getRequest());
        ct.sendRequest();
    }

    public SipProvider providerOf(Dialog dialog) {
        if (dialog instanceof gov.nist.javax.sip.stack.SIPDialog d && d.getSipProvider() != null) {
            return d.getSipProvider();
        }
        return provider();
    }

    /** The server transaction of a request, created when the stack did not make one. */
    public ServerTransaction serverTransaction(RequestEvent event) throws SipException {
        ServerTransaction st = event.getServerTransaction();
        if (st != null) return st;
        return ((SipProvider) event.getSource()).getNewServerTransaction(event.getRequest());
    }

    public Response response(int code, Request request) throws java.text.ParseException {
        return messageFactory.createResponse(code, request);
    }

    /** The server transaction the stack or {@link #serverTransaction} made for this request, or null. */
    public ServerTransaction existingServerTransaction(RequestEvent event) {
        if (event.getServerTransaction() != null) return event.getServerTransaction();
        Object tx = event.getRequest() instanceof gov.nist.javax.sip.message.SIPRequest r ? r.getTransaction() : null;
        return tx instanceof ServerTransaction st ? st : null;
    }

    /** Sends a refusal in a server transaction, or statelessly when the request cannot have one. */
    private void respond(RequestEvent event, Response r) throws SipException, InvalidArgumentException {
        try {
            serverTransaction(event).sendResponse(r);
        } catch (SipException | InvalidArgumentException | RuntimeException e) {
            log.debug("stateless {}: {}", r.getStatusCode(), e.toString());
            ((SipProvider) event.getSource()).sendResponse(r);
        }
    }

    /**
     * Whether a request from address:port over that transport is accepted: lab.sip.trusted-sources ({@link SipSources}:
     * address AND port), by default the P-CSCF — lab.ims.proxy as HOST:PORT through SipSources, or, when it is a
     * name (RFC 3263), the targets it resolved to ({@link Pcscf#isPcscf}: address and port over UDP, the address
     * over TCP/TLS, whose connections come from ephemeral ports).
     */
    boolean trustedSource(String transport, String address, int port) {
        if (sources.accepts(transport, address, port)) return true;
        return !sources.configured() && pcscf.isPcscf(address, port, transport);
    }

    @Override
    public void processRequest(RequestEvent event) {
        long received = System.nanoTime();
        Request request = event.getRequest();
        try {
            // the datagram's or connection's real source: the event's "remote port" is the Via's sent-by port, which
            // the sender writes itself (a forged Via: 127.0.0.1:5060 from another port would pass a check on it)
            java.net.InetAddress packetFrom = request instanceof gov.nist.javax.sip.message.SIPMessage m ? m.getPeerPacketSourceAddress() : null;
            int sourcePort = request instanceof gov.nist.javax.sip.message.SIPMessage m ? m.getPeerPacketSourcePort() : -1;
            String source = packetFrom != null ? packetFrom.getHostAddress() : null;
            String over = event.getSource() == udp ? "udp" : transport.equals("tls") ? "tls" : "tcp";
            // what the parser found wrong is answered first, whoever sent it (RFC 4475: 400/505 with the reason)
            RequestCheck.Refusal refusal = RequestCheck.malformed(request);
            if (refusal == null && !trustedSource(over, source, sourcePort)) {
                log.warn("{} from {}:{} ({}) refused: not a trusted SIP source ({})", request.getMethod(), source, sourcePort,
                        over, sources.describe());
                if (!Request.ACK.equals(request.getMethod())) respond(event, response(Response.FORBIDDEN, request));
                return;
            }
            rfc2543Contact(request);
            if (refusal == null) refusal = RequestCheck.check(request);
            if (refusal == null && request.getHeader(javax.sip.header.MaxForwardsHeader.NAME) == null) {
                // RFC 2543 clients send no Max-Forwards; JAIN-SIP makes no transaction without one (RFC 3261 §8.1.1.6: 70)
                request.addHeader(headerFactory.createMaxForwardsHeader(70));
            }
            if (refusal != null) {
                respond(event, refusalResponse(request, refusal));
                log.info("{} from {} refused {}: {}", request.getMethod(), source, refusal.status(), refusal.reason());
                return;
            }
            if (Request.OPTIONS.equals(request.getMethod())) {
                serverTransaction(event).sendResponse(response(Response.OK, request));
                return;
            }
            if (Request.NOTIFY.equals(request.getMethod())) {
                java.util.function.Consumer<RequestEvent> n = notifyHandler;
                if (n == null) respond(event, response(Response.CALL_OR_TRANSACTION_DOES_NOT_EXIST, request));
                else n.accept(event);
                return;
            }
            InboundRequestHandler h = inbound;
            if (h == null) {
                serverTransaction(event).sendResponse(response(Response.SERVICE_UNAVAILABLE, request));
                return;
            }
            if (Request.INVITE.equals(request.getMethod()) && request.getHeader(javax.sip.header.ToHeader.NAME)
                    instanceof javax.sip.header.ToHeader to && to.getTag() == null) {
                timeline.mark(callIdOf(request), SetupTimeline.Mark.INVITE_RECEIVED, received);
            }
            h.onRequest(event);
        } catch (Exception e) {
            log.warn("failed to handle {} from the IMS side", request.getMethod(), e);
            answerFailure(event, e);
        }
    }

    /**
     * The response to a request the gateway failed on ({@link RequestFailure}: 400 with a Warning for the peer's
     * input, 500 only for the gateway's own stack), unless it was answered already or is an ACK.
     */
    public Response failureResponse(Request request, Throwable e) throws java.text.ParseException {
        RequestFailure f = RequestFailure.of(e);
        Response r = response(f.status(), request);
        f.addWarning(r, headerFactory, org.webrtcims.gw.config.HostPort.uriHost(props.getSip().getHost())); // warn-agent: hostport
        return r;
    }

    /** Sends {@link #failureResponse} when the request still waits for a final response (none for an ACK). */
    public void answerFailure(RequestEvent event, Throwable e) {
        Request request = event.getRequest();
        if (Request.ACK.equals(request.getMethod())) return;
        try {
            ServerTransaction st = existingServerTransaction(event);
            if (st != null && st.getState() != null && st.getState().getValue() > TransactionState._PROCEEDING) return;
            Response r = failureResponse(request, e);
            if (r.getHeader(javax.sip.header.ToHeader.NAME) instanceof javax.sip.header.ToHeader to && to.getTag() == null) {
                to.setTag(SipIds.tag());
            }
            if (st != null) st.sendResponse(r);
            else respond(event, r);
        } catch (Exception again) {
            log.warn("no final response to the failed {}: {}", request.getMethod(), again.toString());
        }
    }

    /**
     * An RFC 2543 INVITE (no From tag) may come without Contact (RFC 4475 §3.4.1); RFC 2543 then sends later
     * requests to the From address, and JAIN-SIP makes no INVITE transaction without a Contact: the From URI is
     * given as the Contact. An RFC 3261 INVITE without Contact stays a 400 (RequestCheck).
     */
    void rfc2543Contact(Request request) throws java.text.ParseException {
        if (!Request.INVITE.equals(request.getMethod()) || request.getHeader(javax.sip.header.ContactHeader.NAME) != null) return;
        if (!(request.getHeader(javax.sip.header.FromHeader.NAME) instanceof javax.sip.header.FromHeader from) || from.getTag() != null) return;
        request.addHeader(headerFactory.createContactHeader(addressFactory.createAddress(from.getAddress().getURI())));
    }

    /**
     * The response for a refusal: Unsupported for a 420, Accept for a 415, Allow for a 405, and for a 400 or 505
     * the reason in the reason phrase (RFC 3261 §21.4: a UAS SHOULD say why), as plain words.
     */
    Response refusalResponse(Request request, RequestCheck.Refusal refusal) throws java.text.ParseException {
        Response r = response(refusal.status(), request);
        if (!refusal.unsupported().isEmpty()) {
            r.addHeader(headerFactory.createUnsupportedHeader(String.join(", ", refusal.unsupported())));
        }
        if (refusal.status() == Response.UNSUPPORTED_MEDIA_TYPE || refusal.status() == Response.NOT_ACCEPTABLE) {
            r.addHeader(headerFactory.createAcceptHeader("application", "sdp"));
        }
        if (refusal.status() == Response.METHOD_NOT_ALLOWED) {
            for (String m : new java.util.TreeSet<>(RequestCheck.METHODS)) r.addHeader(headerFactory.createAllowHeader(m));
        }
        if (refusal.status() == Response.BAD_REQUEST || refusal.status() == Response.VERSION_NOT_SUPPORTED) {
            String why = refusal.reason().replaceAll("[^\\x20-\\x7e]", "?");
            if (why.length() > 120) why = why.substring(0, 117) + "...";
            r.setReasonPhrase((refusal.status() == Response.BAD_REQUEST ? "Bad Request" : "Version Not Supported") + " (" + why + ")");
        }
        return r;
    }

    @Override
    public void processResponse(ResponseEvent event) {
        long received = System.nanoTime();
        ClientTransaction ct = event.getClientTransaction();
        if (ct == null && event instanceof gov.nist.javax.sip.ResponseEventExt ext) ct = ext.getOriginalTransaction(); // a fork's
        if (ct == null) {
            log.debug("stray response {} dropped", event.getResponse().getStatusCode());
            return;
        }
        int code = event.getResponse().getStatusCode();
        boolean invite2xx = code >= 200 && code < 300 && javax.sip.message.Request.INVITE.equals(
                ((javax.sip.header.CSeqHeader) event.getResponse().getHeader(javax.sip.header.CSeqHeader.NAME)).getMethod());
        // an INVITE's handler stays for 2xx retransmissions and other forks' 2xx until the transaction ends
        ResponseHandler h = code >= 200 && !invite2xx ? handlers.remove(ct) : handlers.get(ct);
        if (h == null && invite2xx) { // another fork's 2xx after the transaction ended
            Lingering l = forkWindow.get(ct);
            if (l != null && System.nanoTime() - l.untilNanos() < 0) h = l.handler();
        }
        if (h == null) log.debug("response {} to a transaction without a handler dropped", code);
        if (h != null && code >= 180 && code < 300 && event.getResponse().getRawContent() != null
                && Request.INVITE.equals(((javax.sip.header.CSeqHeader) event.getResponse().getHeader(javax.sip.header.CSeqHeader.NAME)).getMethod())) {
            timeline.mark(callIdOf(event.getResponse()), SetupTimeline.Mark.IMS_ANSWER_RECEIVED, received);
        }
        if (h != null) {
            try {
                h.onResponse(event);
            } catch (RuntimeException e) {
                log.warn("response handler failed: {}", e.toString());
            }
        }
    }

    @Override
    public void processTimeout(TimeoutEvent event) {
        if (event.isServerTransaction()) {
            InboundRequestHandler h = inbound;
            try {
                if (h != null) h.onServerTimeout(event.getServerTransaction());
            } catch (RuntimeException e) {
                log.warn("server transaction timeout handler failed: {}", e.toString());
            }
            return;
        }
        ResponseHandler h = handlers.remove(event.getClientTransaction());
        if (h != null) h.onTimeout();
    }

    @Override
    public void processIOException(IOExceptionEvent event) {
        log.warn("SIP I/O error toward {}:{}/{}", event.getHost(), event.getPort(), event.getTransport());
    }

    @Override
    public void processTransactionTerminated(TransactionTerminatedEvent event) {
        if (event.isServerTransaction()) return;
        ClientTransaction ct = event.getClientTransaction();
        ResponseHandler h = handlers.remove(ct);
        long now = System.nanoTime();
        for (ClientTransaction head; (head = forkExpiry.peek()) != null; ) {
            Lingering l = forkWindow.get(head);
            if (l != null && now - l.untilNanos() < 0) break;
            forkExpiry.poll();
            forkWindow.remove(head);
        }
        if (h != null && ct.getRequest() != null && javax.sip.message.Request.INVITE.equals(ct.getRequest().getMethod())) {
            forkWindow.put(ct, new Lingering(h, now + java.util.concurrent.TimeUnit.SECONDS.toNanos(MAX_FORK_TIME_S)));
            forkExpiry.add(ct);
        }
    }

    @Override
    public void processDialogTerminated(DialogTerminatedEvent event) {
        InboundRequestHandler h = inbound;
        try {
            if (h != null) h.onDialogTerminated(event.getDialog());
        } catch (RuntimeException e) {
            log.warn("dialog terminated handler failed: {}", e.toString());
        }
    }

    /**
     * As SipListenerExt the stack reports a dialog timeout here instead of acting alone. For the two it would
     * otherwise delete the dialog on (no ACK for our 2xx, an early dialog left too long) the call layer ends
     * its call (BYE), then the dialog is deleted as before; other reasons are only logged.
     */
    @Override
    public void processDialogTimeout(gov.nist.javax.sip.DialogTimeoutEvent event) {
        gov.nist.javax.sip.DialogTimeoutEvent.Reason reason = event.getReason();
        boolean ends = reason == gov.nist.javax.sip.DialogTimeoutEvent.Reason.AckNotReceived
                || reason == gov.nist.javax.sip.DialogTimeoutEvent.Reason.EarlyStateTimeout;
        if (!ends) {
            log.info("dialog {}: {} (no action)", event.getDialog() == null ? null : event.getDialog().getDialogId(), reason);
            return;
        }
        InboundRequestHandler h = inbound;
        try {
            if (h != null) h.onDialogTimeout(event.getDialog(), reason.name());
        } catch (RuntimeException e) {
            log.warn("dialog timeout handler failed: {}", e.toString());
        } finally {
            event.getDialog().delete();
        }
    }

    @PreDestroy
    public void stop() {
        stack.stop();
    }
}

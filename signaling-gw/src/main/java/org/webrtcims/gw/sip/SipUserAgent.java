package org.webrtcims.gw.sip;

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
import javax.sip.header.HeaderFactory;
import javax.sip.message.MessageFactory;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * The gateway's SIP user agent, the JAIN-SIP listener of its one stack ({@link SipListeningStack}: UDP and TCP or
 * TLS on one address): it sends requests in client transactions ({@link ClientTransactions} keeps their handlers,
 * an ended INVITE's for the fork window), and dispatches what comes in — responses to their transaction's handler,
 * requests past the {@link RequestScreen} (OPTIONS answered here, NOTIFYs to the reg-event handler, the rest to the
 * call layer), timeouts and ended dialogs to the call layer.
 */
@Component
public class SipUserAgent implements gov.nist.javax.sip.SipListenerExt {
    private static final java.security.SecureRandom TAGS = new java.security.SecureRandom();
    private static final Logger log = LoggerFactory.getLogger(SipUserAgent.class);

    private final GatewayProperties props;
    private final SipListeningStack stack;
    /** Where the P-CSCF is, and over which transport now (RFC 3263: a domain's NAPTR picks it). */
    private final Pcscf pcscf;
    private final ClientTransactions transactions = new ClientTransactions();
    private final RequestScreen screen;
    private volatile InboundRequestHandler inbound;
    /** NOTIFYs (the reg-event package, RegistrationClient): none = 481 to every NOTIFY. */
    private volatile java.util.function.Consumer<RequestEvent> notifyHandler;

    /** The set-up timeline (issue #26): INVITEs in and out, the IMS answer, the 200 to an MT INVITE. */
    private final SipSetupMarks marks;

    public SipUserAgent(GatewayProperties props, Pcscf pcscf) throws Exception {
        this(props, pcscf, SetupTimeline.off());
    }

    @org.springframework.beans.factory.annotation.Autowired
    public SipUserAgent(GatewayProperties props, Pcscf pcscf, SetupTimeline timeline) throws Exception {
        this.marks = new SipSetupMarks(timeline);
        this.props = props;
        this.pcscf = pcscf;
        SipSources sources = new SipSources(props, new org.webrtcims.gw.net.LocalSockets());
        stack = new SipListeningStack(props);
        screen = new RequestScreen(sources, pcscf, stack.addresses(), stack.headers(), stack.messages());
        stack.start(this);
        log.info("SIP UA listening on udp+{} {}, outbound proxy {}: {} ({}), requests taken from {}", stack.streamTransport(),
                stack.where(), props.getIms().getProxy(), pcscf.targets().isEmpty() ? "not found yet" : pcscf.current(),
                props.getIms().getTransport(), sources.describe());
    }

    public void setInboundHandler(InboundRequestHandler handler) { this.inbound = handler; }

    public void setNotifyHandler(java.util.function.Consumer<RequestEvent> handler) { this.notifyHandler = handler; }

    public AddressFactory addresses() { return stack.addresses(); }
    public HeaderFactory headers() { return stack.headers(); }
    public MessageFactory messages() { return stack.messages(); }

    /** The provider for the transport toward the IMS proxy now (the current P-CSCF target's). */
    public SipProvider provider() {
        return stack.provider(transport());
    }

    /** The owner of the P-CSCF's address (resolved, current target). */
    public Pcscf pcscf() { return pcscf; }

    /** SIP dialogs (early and confirmed) the stack holds now: the soak watches it for leaks (`gw_sip_dialogs`). */
    public int dialogCount() {
        return stack.dialogCount();
    }

    /**
     * udp, tcp or tls: the transport toward the P-CSCF now (Via, Contact and Route carry it): lab.ims.transport, or
     * with a domain as lab.ims.proxy the one its NAPTR record chose (udp or tcp; only tls with lab.ims.transport=tls).
     */
    public String transport() { return pcscf.transport(); }

    public String newCallId() { return provider().getNewCallId().getCallId(); }

    /** A new From or To tag (RFC 3261 §19.3: random, at least 32 bits; here 48 from a SecureRandom, in hex). */
    public static String newTag() {
        byte[] b = new byte[6];
        TAGS.nextBytes(b);
        return java.util.HexFormat.of().formatHex(b);
    }

    public AuthenticationHelper authenticationHelper(AccountManager accounts) {
        return stack.authenticationHelper(accounts);
    }

    /** Sends an out-of-dialog request in a new client transaction. */
    public ClientTransaction sendRequest(Request request, ResponseHandler handler) throws SipException {
        ClientTransaction ct = provider().getNewClientTransaction(request);
        transactions.track(ct, handler);
        handler.sending(request);
        ct.sendRequest();
        marks.sent(request);
        return ct;
    }

    /** A response went on its server transaction: a 2xx to an INVITE marks the call's set-up timeline (MT: 200 sent). */
    public void responded(ServerTransaction st, Response r) { marks.responded(st, r); }

    /** Sends a request that the dialog built (BYE, re-INVITE …) through that dialog. */
    public ClientTransaction sendInDialog(Dialog dialog, Request request, ResponseHandler handler) throws SipException {
        ClientTransaction ct = providerOf(dialog).getNewClientTransaction(request);
        if (handler != null) {
            transactions.track(ct, handler);
            handler.sending(request);
        }
        dialog.sendRequest(ct);
        return ct;
    }

    /** Tracks a transaction made elsewhere (e.g. by the authentication helper) and sends it. */
    public void sendPrepared(ClientTransaction ct, ResponseHandler handler) throws SipException {
        transactions.track(ct, handler);
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
        return stack.messages().createResponse(code, request);
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

    @Override
    public void processRequest(RequestEvent event) {
        long received = System.nanoTime();
        long receivedCpu = SetupTimeline.cpuNow();
        Request request = event.getRequest();
        try {
            RequestScreen.Refused refused = screen.screen(request, stack.transportOf(event.getSource()));
            if (refused != null) {
                if (refused.response() != null) respond(event, refused.response());
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
            marks.received(request, received, receivedCpu);
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
        f.addWarning(r, stack.headers(), org.webrtcims.gw.config.HostPort.uriHost(props.getSip().getHost())); // warn-agent: hostport
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
                to.setTag(SipUserAgent.newTag());
            }
            if (st != null) st.sendResponse(r);
            else respond(event, r);
        } catch (Exception again) {
            log.warn("no final response to the failed {}: {}", request.getMethod(), again.toString());
        }
    }

    @Override
    public void processResponse(ResponseEvent event) {
        long received = System.nanoTime();
        long receivedCpu = SetupTimeline.cpuNow();
        ClientTransaction ct = event.getClientTransaction();
        if (ct == null && event instanceof gov.nist.javax.sip.ResponseEventExt ext) ct = ext.getOriginalTransaction(); // a fork's
        if (ct == null) {
            log.debug("stray response {} dropped", event.getResponse().getStatusCode());
            return;
        }
        // an INVITE's handler stays for 2xx retransmissions and other forks' 2xx, after the transaction for the fork window
        ResponseHandler h = transactions.forResponse(ct, event.getResponse());
        if (h == null) log.debug("response {} to a transaction without a handler dropped", event.getResponse().getStatusCode());
        if (h != null) {
            marks.received(event.getResponse(), received, receivedCpu);
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
        ResponseHandler h = transactions.timedOut(event.getClientTransaction());
        if (h != null) h.onTimeout();
    }

    @Override
    public void processIOException(IOExceptionEvent event) {
        log.warn("SIP I/O error toward {}:{}/{}", event.getHost(), event.getPort(), event.getTransport());
    }

    @Override
    public void processTransactionTerminated(TransactionTerminatedEvent event) {
        if (event.isServerTransaction()) return;
        transactions.ended(event.getClientTransaction());
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

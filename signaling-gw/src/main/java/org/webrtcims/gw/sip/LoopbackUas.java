package org.webrtcims.gw.sip;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sip.DialogTerminatedEvent;
import javax.sip.IOExceptionEvent;
import javax.sip.ListeningPoint;
import javax.sip.RequestEvent;
import javax.sip.ResponseEvent;
import javax.sip.ServerTransaction;
import javax.sip.SipFactory;
import javax.sip.SipListener;
import javax.sip.SipProvider;
import javax.sip.SipStack;
import javax.sip.TimeoutEvent;
import javax.sip.TransactionTerminatedEvent;
import javax.sip.address.AddressFactory;
import javax.sip.address.SipURI;
import javax.sip.header.HeaderFactory;
import javax.sip.header.ToHeader;
import javax.sip.message.MessageFactory;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The far end of the gateway's start-up warm-up calls (call/SetupWarmup, issue #26): a SIP UAS on a JAIN-SIP stack
 * of its own, UDP on the gateway's SIP host and a free port, that answers an INVITE with 180 and 200 (an SDP answer
 * with the offer's first audio format), takes the ACK and answers a BYE with 200. It serves no one else: only the
 * warm-up knows its port, and it is closed when the warm-up ends.
 */
public final class LoopbackUas implements SipListener, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LoopbackUas.class);
    private static final Pattern AUDIO_FORMAT = Pattern.compile("(?m)^m=audio \\d+ \\S+ (\\d+)");

    private final SipStack stack;
    private final SipProvider provider;
    private final String host;
    private final int port;
    private final MessageFactory messages;
    private final HeaderFactory headers;
    private final AddressFactory addresses;

    private LoopbackUas(SipStack stack, SipProvider provider, String host, int port, SipFactory f) throws Exception {
        this.stack = stack;
        this.provider = provider;
        this.host = host;
        this.port = port;
        this.messages = f.createMessageFactory();
        this.headers = f.createHeaderFactory();
        this.addresses = f.createAddressFactory();
    }

    /** Starts the UAS on {@code host} (an address of this machine) and a free UDP port. */
    public static LoopbackUas start(String host) throws Exception {
        Properties p = new Properties();
        p.setProperty("javax.sip.STACK_NAME", "webrtc-ims-gw-warmup-uas");
        p.setProperty("gov.nist.javax.sip.TRACE_LEVEL", "0");
        p.setProperty("gov.nist.javax.sip.REENTRANT_LISTENER", "true");
        p.setProperty("gov.nist.javax.sip.THREAD_POOL_SIZE", "1");
        SipFactory f = SipFactory.getInstance();
        f.setPathName("gov.nist");
        SipStack stack = f.createSipStack(p);
        int port;
        try (DatagramSocket probe = new DatagramSocket(0, InetAddress.getByName(host))) {
            port = probe.getLocalPort();
        }
        try {
            ListeningPoint lp = stack.createListeningPoint(host, port, ListeningPoint.UDP);
            SipProvider provider = stack.createSipProvider(lp);
            LoopbackUas uas = new LoopbackUas(stack, provider, host, port, f);
            provider.addSipListener(uas);
            stack.start();
            return uas;
        } catch (Exception e) {
            stack.stop();
            throw e;
        }
    }

    /** sip:user@host:port of this UAS. */
    public SipURI uri(String user) throws java.text.ParseException {
        SipURI u = addresses.createSipURI(user, org.webrtcims.gw.config.HostPort.uriHost(host));
        u.setPort(port);
        return u;
    }

    @Override
    public void processRequest(RequestEvent event) {
        Request req = event.getRequest();
        try {
            switch (req.getMethod()) {
                case Request.INVITE -> {
                    ServerTransaction st = provider.getNewServerTransaction(req);
                    String tag = SipUserAgent.newTag();
                    st.sendResponse(tagged(messages.createResponse(Response.RINGING, req), tag));
                    Response ok = tagged(messages.createResponse(Response.OK, req), tag);
                    ok.addHeader(headers.createContactHeader(addresses.createAddress(uri("warmup"))));
                    ok.setContent(answer(SipHeaders.sdp(req)), headers.createContentTypeHeader("application", "sdp"));
                    st.sendResponse(ok);
                }
                case Request.ACK -> { }
                // in the INVITE's dialog the stack has made the BYE's server transaction already
                case Request.BYE -> serverTransaction(event).sendResponse(messages.createResponse(Response.OK, req));
                default -> serverTransaction(event).sendResponse(messages.createResponse(Response.NOT_IMPLEMENTED, req));
            }
        } catch (Exception e) {
            log.debug("warm-up UAS: {} not answered: {}", req.getMethod(), e.toString());
        }
    }

    private ServerTransaction serverTransaction(RequestEvent event) throws Exception {
        ServerTransaction st = event.getServerTransaction();
        return st != null ? st : provider.getNewServerTransaction(event.getRequest());
    }

    private static Response tagged(Response r, String tag) throws java.text.ParseException {
        ((ToHeader) r.getHeader(ToHeader.NAME)).setTag(tag);
        return r;
    }

    /** An SDP answer to {@code offer}: its first audio format, on this UAS's host. */
    String answer(String offer) {
        Matcher m = AUDIO_FORMAT.matcher(offer == null ? "" : offer);
        String pt = m.find() ? m.group(1) : "0";
        Matcher map = Pattern.compile("(?m)^a=rtpmap:" + pt + " (\\S+)").matcher(offer == null ? "" : offer);
        String ip = host.contains(":") ? "IP6" : "IP4";
        return "v=0\r\no=- 1 1 IN " + ip + " " + host + "\r\ns=-\r\nc=IN " + ip + " " + host + "\r\nt=0 0\r\n"
                + "m=audio 9 RTP/AVP " + pt + "\r\n" + (map.find() ? "a=rtpmap:" + pt + " " + map.group(1) + "\r\n" : "")
                + "a=sendrecv\r\n";
    }

    @Override public void processResponse(ResponseEvent event) { }
    @Override public void processTimeout(TimeoutEvent event) { }
    @Override public void processIOException(IOExceptionEvent event) { }
    @Override public void processTransactionTerminated(TransactionTerminatedEvent event) { }
    @Override public void processDialogTerminated(DialogTerminatedEvent event) { }

    @Override
    public void close() {
        stack.stop();
    }
}

package org.webrtcims.gw.sip;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sip.InvalidArgumentException;
import javax.sip.address.AddressFactory;
import javax.sip.header.ContactHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.HeaderFactory;
import javax.sip.header.MaxForwardsHeader;
import javax.sip.message.MessageFactory;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.text.ParseException;
import java.util.TreeSet;

/**
 * The gateway's front door for SIP requests, before any handler sees one: what the parser found wrong
 * (RFC 4475: 400/505 with the reason, whoever sent it), then the trusted-source check ({@link SipSources}, by
 * default the P-CSCF, {@link Pcscf#isPcscf}), then {@link RequestCheck}'s RFC 3261 §8.2 checks; on the way an
 * RFC 2543 INVITE gets its From as Contact and a request without Max-Forwards gets 70.
 */
final class RequestScreen {
    private static final Logger log = LoggerFactory.getLogger(RequestScreen.class);

    /** A request refused: the response to send it, or null (an ACK gets none). */
    record Refused(Response response) { }

    private final SipSources sources;
    private final Pcscf pcscf;
    private final AddressFactory addressFactory;
    private final HeaderFactory headerFactory;
    private final MessageFactory messageFactory;

    RequestScreen(SipSources sources, Pcscf pcscf, AddressFactory addresses, HeaderFactory headers, MessageFactory messages) {
        this.sources = sources;
        this.pcscf = pcscf;
        this.addressFactory = addresses;
        this.headerFactory = headers;
        this.messageFactory = messages;
    }

    /** Whom requests are taken from, for the log. */
    String describeSources() { return sources.describe(); }

    /**
     * The refusal of a request that came in over that transport (udp, tcp or tls), or null when it may go on
     * (then possibly with a Contact or Max-Forwards added, as above). Logs each refusal.
     */
    Refused screen(Request request, String over) throws ParseException, InvalidArgumentException {
        // the datagram's or connection's real source: the event's "remote port" is the Via's sent-by port, which
        // the sender writes itself (a forged Via: 127.0.0.1:5060 from another port would pass a check on it)
        java.net.InetAddress packetFrom = request instanceof gov.nist.javax.sip.message.SIPMessage m ? m.getPeerPacketSourceAddress() : null;
        int sourcePort = request instanceof gov.nist.javax.sip.message.SIPMessage m ? m.getPeerPacketSourcePort() : -1;
        String source = packetFrom != null ? packetFrom.getHostAddress() : null;
        // what the parser found wrong is answered first, whoever sent it (RFC 4475: 400/505 with the reason)
        RequestCheck.Refusal refusal = RequestCheck.malformed(request);
        if (refusal == null && !trustedSource(over, source, sourcePort)) {
            log.warn("{} from {}:{} ({}) refused: not a trusted SIP source ({})", request.getMethod(), source, sourcePort,
                    over, sources.describe());
            return new Refused(Request.ACK.equals(request.getMethod()) ? null
                    : messageFactory.createResponse(Response.FORBIDDEN, request));
        }
        rfc2543Contact(request);
        if (refusal == null) refusal = RequestCheck.check(request);
        if (refusal == null && request.getHeader(MaxForwardsHeader.NAME) == null) {
            // RFC 2543 clients send no Max-Forwards; JAIN-SIP makes no transaction without one (RFC 3261 §8.1.1.6: 70)
            request.addHeader(headerFactory.createMaxForwardsHeader(70));
        }
        if (refusal == null) return null;
        log.info("{} from {} refused {}: {}", request.getMethod(), source, refusal.status(), refusal.reason());
        return new Refused(refusalResponse(request, refusal));
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

    /**
     * An RFC 2543 INVITE (no From tag) may come without Contact (RFC 4475 §3.4.1); RFC 2543 then sends later
     * requests to the From address, and JAIN-SIP makes no INVITE transaction without a Contact: the From URI is
     * given as the Contact. An RFC 3261 INVITE without Contact stays a 400 (RequestCheck).
     */
    void rfc2543Contact(Request request) throws ParseException {
        if (!Request.INVITE.equals(request.getMethod()) || request.getHeader(ContactHeader.NAME) != null) return;
        if (!(request.getHeader(FromHeader.NAME) instanceof FromHeader from) || from.getTag() != null) return;
        request.addHeader(headerFactory.createContactHeader(addressFactory.createAddress(from.getAddress().getURI())));
    }

    /**
     * The response for a refusal: Unsupported for a 420, Accept for a 415, Allow for a 405, and for a 400 or 505
     * the reason in the reason phrase (RFC 3261 §21.4: a UAS SHOULD say why), as plain words.
     */
    Response refusalResponse(Request request, RequestCheck.Refusal refusal) throws ParseException {
        Response r = messageFactory.createResponse(refusal.status(), request);
        if (!refusal.unsupported().isEmpty()) {
            r.addHeader(headerFactory.createUnsupportedHeader(String.join(", ", refusal.unsupported())));
        }
        if (refusal.status() == Response.UNSUPPORTED_MEDIA_TYPE || refusal.status() == Response.NOT_ACCEPTABLE) {
            r.addHeader(headerFactory.createAcceptHeader("application", "sdp"));
        }
        if (refusal.status() == Response.METHOD_NOT_ALLOWED) {
            for (String m : new TreeSet<>(RequestCheck.METHODS)) r.addHeader(headerFactory.createAllowHeader(m));
        }
        if (refusal.status() == Response.BAD_REQUEST || refusal.status() == Response.VERSION_NOT_SUPPORTED) {
            String why = refusal.reason().replaceAll("[^\\x20-\\x7e]", "?");
            if (why.length() > 120) why = why.substring(0, 117) + "...";
            r.setReasonPhrase((refusal.status() == Response.BAD_REQUEST ? "Bad Request" : "Version Not Supported") + " (" + why + ")");
        }
        return r;
    }
}

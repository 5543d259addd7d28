package org.webrtcims.gw.sip;

import javax.sip.address.URI;
import javax.sip.header.CSeqHeader;
import javax.sip.header.ContentTypeHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.ListIterator;
import java.util.Locale;
import java.util.Set;

/**
 * The checks RFC 3261 §8.2 asks of a UAS before it acts on a parsed request: what the parser forgave (a SIP
 * version other than 2.0: 505; a header line it could not read or a repeated single-valued header: 400,
 * see {@link StrictMessageParserFactory} and {@link MalformedRequest}), then in RFC 3261's order: method (405 for
 * one the gateway does not serve, e.g. REGISTER; 501 for one it does not know),
 * Request-URI scheme (416), the single-valued headers once each and the CSeq method matching (400), Require
 * (420 with Unsupported), Content-Type (415), an INVITE's Accept without SDP (406). Max-Forwards may be missing (an RFC 2543 client). Pure: it
 * looks at the request and says which response, if any, refuses it.
 */
public final class RequestCheck {
    /** The methods the gateway acts on; others get 501. */
    public static final Set<String> METHODS = Set.of(Request.INVITE, Request.ACK, Request.BYE, Request.CANCEL,
            Request.OPTIONS, Request.PRACK, Request.UPDATE, Request.NOTIFY);
    /** Methods SIP defines that the gateway does not act on (it is no registrar, presence or message server): 405. */
    public static final Set<String> NOT_ALLOWED = Set.of(Request.REGISTER, Request.SUBSCRIBE, Request.PUBLISH,
            Request.MESSAGE, Request.REFER, Request.INFO);
    /** The option tags the gateway implements (Require of anything else: 420). */
    public static final Set<String> EXTENSIONS = Set.of("100rel", "precondition", "path", "timer", "replaces");
    private static final List<String> SINGLE = List.of("Call-ID", "CSeq", "From", "To", "Max-Forwards", "Content-Length",
            "Content-Type");

    /** A refusal: the status code, its reason, and the Unsupported option tags for a 420. */
    public record Refusal(int status, String reason, List<String> unsupported) { }

    private RequestCheck() { }

    /**
     * The refusal of a request the parser marked or could not read in part (400, or 505 for the SIP version), or
     * null. It needs no trust in the sender: the gateway answers it before it looks at where the request came from.
     */
    public static Refusal malformed(Request req) {
        if (Request.ACK.equals(req.getMethod())) return null;
        String unparsed = unparsedLine(req);
        if (unparsed != null && unparsed.startsWith(StrictMessageParserFactory.VIOLATION)) {
            String v = unparsed.substring(StrictMessageParserFactory.VIOLATION.length());
            return new Refusal(Integer.parseInt(v.substring(0, 3)), v.substring(4), List.of());
        }
        if (unparsed != null) return new Refusal(Response.BAD_REQUEST, "unparseable header line '" + unparsed + "'", List.of());
        return null;
    }

    /** The refusal of `req`, or null when the gateway may act on it. An ACK is never refused (it gets no response). */
    public static Refusal check(Request req) {
        String method = req.getMethod();
        if (Request.ACK.equals(method)) return null;
        Refusal malformed = malformed(req);
        if (malformed != null) return malformed;
        if (NOT_ALLOWED.contains(method)) return new Refusal(Response.METHOD_NOT_ALLOWED, "method " + method + " not allowed", List.of());
        if (!METHODS.contains(method)) return new Refusal(Response.NOT_IMPLEMENTED, "method " + method + " not implemented", List.of());
        URI ruri = req.getRequestURI();
        String scheme = ruri == null || ruri.getScheme() == null ? "" : ruri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("sip") && !scheme.equals("sips")) {
            return new Refusal(Response.UNSUPPORTED_URI_SCHEME, "Request-URI scheme '" + scheme + "' not supported", List.of());
        }
        for (String name : SINGLE) {
            if (count(req, name) > 1) return new Refusal(Response.BAD_REQUEST, "more than one " + name + " header", List.of());
        }
        // (RFC 2543 made Contact optional, RFC 4475 §3.4.1; JAIN-SIP makes no INVITE transaction without one)
        if (Request.INVITE.equals(method) && req.getHeader(javax.sip.header.ContactHeader.NAME) == null) {
            return new Refusal(Response.BAD_REQUEST, "an INVITE needs a Contact", List.of());
        }
        CSeqHeader cseq = (CSeqHeader) req.getHeader(CSeqHeader.NAME);
        if (cseq == null || !method.equals(cseq.getMethod())) {
            return new Refusal(Response.BAD_REQUEST, "CSeq method does not match the request method", List.of());
        }
        if (!Request.CANCEL.equals(method)) {
            List<String> unsupported = new ArrayList<>();
            for (String t : SipHeaders.tokens(req, "Require")) {
                String tag = t.toLowerCase(Locale.ROOT);
                if (!EXTENSIONS.contains(tag) && !unsupported.contains(tag)) unsupported.add(tag);
            }
            if (!unsupported.isEmpty()) return new Refusal(Response.BAD_EXTENSION, "Bad Extension", unsupported);
        }
        ContentTypeHeader ct = (ContentTypeHeader) req.getHeader(ContentTypeHeader.NAME);
        // NOTIFY carries the reg-event package's application/reginfo+xml (RFC 3680), every other request SDP
        String subtype = Request.NOTIFY.equals(method) ? "reginfo+xml" : "sdp";
        if (req.getRawContent() != null && req.getRawContent().length > 0 && ct != null
                && !("application".equalsIgnoreCase(ct.getContentType()) && subtype.equalsIgnoreCase(ct.getContentSubType()))) {
            return new Refusal(Response.UNSUPPORTED_MEDIA_TYPE, "only application/" + subtype + " bodies", List.of());
        }
        if (Request.INVITE.equals(method) && !acceptsSdp(req)) { // RFC 3261 §21.4.7, RFC 4475 §3.3.15
            return new Refusal(Response.NOT_ACCEPTABLE, "the answer is application/sdp, which Accept does not list", List.of());
        }
        return null;
    }

    /**
     * A header line JAIN-SIP could not parse and kept aside (a line without a name, a second CSeq …), or null.
     * The stack drops requests whose Call-ID, From, To, CSeq or Via it cannot read before the gateway sees them.
     */
    private static String unparsedLine(Request req) {
        if (!(req instanceof gov.nist.javax.sip.message.SIPMessage m)) return null;
        ListIterator<String> it = m.getUnrecognizedHeaders();
        while (it != null && it.hasNext()) {
            String line = it.next();
            if (line.startsWith(StrictMessageParserFactory.VIOLATION)) return line;
            int colon = line.indexOf(':');
            if (colon <= 0) return line.trim();
            String name = line.substring(0, colon).trim();
            for (String single : SINGLE) if (single.equalsIgnoreCase(name)) return line.trim();
            if (name.equalsIgnoreCase("i") || name.equalsIgnoreCase("l") || name.equalsIgnoreCase("f")
                    || name.equalsIgnoreCase("t") || name.equalsIgnoreCase("c")) return line.trim();
        }
        return null;
    }

    /** No Accept header (RFC 3261 §20.1: application/sdp is assumed), or one that lists sdp, application/* or *\/*. */
    private static boolean acceptsSdp(Request req) {
        ListIterator<?> it = req.getHeaders(javax.sip.header.AcceptHeader.NAME);
        if (it == null || !it.hasNext()) return true;
        while (it.hasNext()) {
            if (it.next() instanceof javax.sip.header.AcceptHeader a) {
                String type = a.getContentType() == null ? "" : a.getContentType().toLowerCase(Locale.ROOT);
                String sub = a.getContentSubType() == null ? "" : a.getContentSubType().toLowerCase(Locale.ROOT);
                if ((type.equals("application") || type.equals("*")) && (sub.equals("sdp") || sub.equals("*"))) return true;
                if (type.isEmpty()) return true; // an empty Accept header: no preference stated
            }
        }
        return false;
    }

    private static int count(Request req, String name) {
        int n = 0;
        ListIterator<?> it = req.getHeaders(name);
        while (it != null && it.hasNext()) {
            it.next();
            n++;
        }
        return n;
    }
}

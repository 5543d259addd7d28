package org.webrtcims.gw.sip;

import gov.nist.javax.sip.header.Via;
import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.parser.MessageParser;
import gov.nist.javax.sip.parser.MessageParserFactory;
import gov.nist.javax.sip.parser.ParseExceptionListener;
import gov.nist.javax.sip.parser.StringMsgParser;
import gov.nist.javax.sip.stack.ConnectionOrientedMessageChannel;
import gov.nist.javax.sip.stack.MessageChannel;
import gov.nist.javax.sip.stack.SIPTransactionStack;

import java.text.ParseException;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * JAIN-SIP's own parser (`StringMsgParser`), plus what it forgives silently on a request: a SIP version
 * other than 2.0 (it reads `SIP/7.0` as 2.0) and a second Call-ID, CSeq, From, To, Max-Forwards or
 * Content-Type (it keeps one), and a request without Call-ID, From, To or CSeq (it drops it silently; see
 * {@link #fillMissing}). Such a request is parsed as before and marked with an unrecognized header
 * line `VIOLATION` + status + reason, which {@link RequestCheck} turns into 505 or 400. Installed with the
 * stack property `gov.nist.javax.sip.MESSAGE_PARSER_FACTORY` (UDP and TCP's pipelined parser use it alike).
 */
public class StrictMessageParserFactory implements MessageParserFactory {
    /** The prefix of the marker line; never a real header name (it has a space). */
    public static final String VIOLATION = "lab violation ";

    private static final Map<String, String> SINGLE = new HashMap<>();
    static {
        for (String[] n : new String[][] {{"call-id", "i"}, {"cseq", null}, {"from", "f"}, {"to", "t"},
                {"max-forwards", null}, {"content-type", "c"}, {"content-length", "l"}}) {
            SINGLE.put(n[0], n[0]);
            if (n[1] != null) SINGLE.put(n[1], n[0]);
        }
    }

    private static final java.util.Set<Class<?>> MANDATORY = java.util.Set.of(gov.nist.javax.sip.header.From.class,
            gov.nist.javax.sip.header.To.class, gov.nist.javax.sip.header.CSeq.class, Via.class,
            gov.nist.javax.sip.header.CallID.class, gov.nist.javax.sip.header.ContentLength.class,
            gov.nist.javax.sip.header.RequestLine.class, gov.nist.javax.sip.header.StatusLine.class);

    /**
     * What the stack's channels do with a header that does not parse (a mandatory one fails the message, any other
     * is kept as an unparsed line), without the TCP channel's closing of the connection: the stand-in is answered
     * on it instead.
     */
    private static final ParseExceptionListener MANDATORY_THROWS = (ex, msg, hdrClass, header, message) -> {
        if (hdrClass != null && MANDATORY.contains(hdrClass)) throw ex;
        if (msg != null) msg.addUnparsed(header);
    };
    @Override
    public MessageParser createMessageParser(SIPTransactionStack stack) {
        StringMsgParser delegate = new StringMsgParser();
        return (byte[] bytes, boolean readBody, boolean strict, ParseExceptionListener listener) -> {
            boolean stream = listener instanceof ConnectionOrientedMessageChannel;
            // a response (the 100, 180 and 200 of every call the gateway places) has none of a request's checks: the
            // request's head is read once, for both of them (issue #26: CPU per call set-up)
            boolean request = isRequest(bytes);
            String violation = request ? violation(bytes) : null;
            MalformedRequest.Head head = request && violation == null ? MalformedRequest.head(bytes) : null;
            if (head != null) {
                String why = MalformedRequest.diagnose(head, bytes, !stream);
                if (why != null) violation = "400 " + why;
            }
            Filled filled = violation == null && head != null ? fillMissing(head, bytes) : null;
            if (filled != null) violation = "400 missing " + filled.missing;
            if (stream && violation != null && violation.contains("Content-Length")) {
                // RFC 4475 §3.1.2.3, §3.3.9: on a stream the framing is lost; the connection is closed
                throw new IllegalStateException("SIP framing lost (" + violation.substring(4) + "): connection closed");
            }
            SIPMessage m;
            try {
                m = delegate.parseSIPMessage(filled != null ? filled.bytes : bytes, readBody, strict, MANDATORY_THROWS);
            } catch (ParseException e) {
                if (!request) throw e;
                // JAIN-SIP drops it (TCP: and closes the connection; UDP: answers 400 with the exception's text):
                // a stand-in with the request's Via, Call-ID, From, To and CSeq gets the 400 with a reason instead
                byte[] standIn = MalformedRequest.standIn(bytes, stream);
                if (standIn == null) return null; // no Via that parses: nowhere to answer
                m = delegate.parseSIPMessage(standIn, readBody, false, listener);
                if (violation == null) violation = "400 " + unparseable(bytes);
            }
            if (m != null && violation != null) m.addUnparsed(VIOLATION + violation);
            if (m != null && readBody) { // a datagram (TCP's pipelined parser reads bodies itself, by Content-Length)
                byte[] body = bodyWithoutContentLength(bytes);
                if (body != null && (m.getRawContent() == null || m.getRawContent().length == 0)) m.setMessageContent(body);
            }
            if (m instanceof SIPRequest r && listener instanceof MessageChannel ch) sameTransport(r, ch);
            return m;
        };
    }

    /**
     * RFC 3261 §18.3, §20.14: over UDP a message without Content-Length has a body up to the end of the
     * datagram (phones send INVITEs so); JAIN-SIP's parser takes such a body for empty. The bytes after the
     * blank line when the header section has no Content-Length (`l:`) and they are not blank, else null.
     */
    static byte[] bodyWithoutContentLength(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        if (end < 0 || end + 4 >= bytes.length) return null;
        for (String line : text.substring(0, end).split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon <= 0 || line.startsWith(" ") || line.startsWith("\t")) continue;
            String name = line.substring(0, colon).trim();
            if (name.equalsIgnoreCase("Content-Length") || name.equalsIgnoreCase("l")) return null;
        }
        if (text.substring(end + 4).isBlank()) return null; // trailing CRLFs are no body
        return java.util.Arrays.copyOfRange(bytes, end + 4, bytes.length);
    }

    /**
     * RFC 3261 §18.2.2: the response to a request that came over a connection goes back on that connection.
     * JAIN-SIP picks the transport of the response from the top Via: a Via that says UDP on a TCP connection
     * (as in RFC 4475's messages) made it send the response as a datagram to the connection's port and then
     * try a new connection to the Via's host ("Failed to connect … trying the advertised port"). The top Via
     * of such a request is given the connection's transport.
     */
    static void sameTransport(SIPRequest r, MessageChannel ch) {
        if (!(ch instanceof ConnectionOrientedMessageChannel)) return;
        Via top = r.getTopmostVia();
        if (top == null || top.getTransport() == null || top.getTransport().equalsIgnoreCase(ch.getTransport())) return;
        try {
            top.setTransport(ch.getTransport());
        } catch (ParseException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean isRequest(byte[] bytes) {
        int i = 0;
        while (i + 1 < bytes.length && bytes[i] == '\r' && bytes[i + 1] == '\n') i += 2;
        return bytes.length - i > 4 && !new String(bytes, i, 4, StandardCharsets.ISO_8859_1).equals("SIP/");
    }

    /** Which part JAIN-SIP could not read, for a request {@link MalformedRequest#diagnose} found nothing in. */
    static String unparseable(byte[] bytes) {
        MalformedRequest.Head h = MalformedRequest.head(bytes);
        for (MalformedRequest.Line l : h.lines()) {
            try {
                StringMsgParser.parseSIPHeader(l.name() + ": " + l.value());
            } catch (ParseException | RuntimeException e) {
                String name = l.name().replaceAll("[^A-Za-z0-9-]", "");
                return "unparseable " + (name.isEmpty() ? "header" : name) + " header";
            }
        }
        return "unparseable Request-Line";
    }

    /** A request with placeholder headers added, and which ones were missing. */
    record Filled(byte[] bytes, String missing) { }

    /**
     * A request without Call-ID, From, To or CSeq is dropped by JAIN-SIP without a word. When it has a Via
     * (so a response can be routed) the missing headers get placeholders, the stack makes a transaction, and
     * the marked request is answered 400 (RFC 3261 §8.1.1, §8.2). Null when nothing is missing, for a
     * request without Via, and for every response.
     */
    static Filled fillMissing(byte[] bytes) {
        return fillMissing(MalformedRequest.head(bytes), bytes);
    }

    /** {@link #fillMissing(byte[])} with the request's head already read ({@link MalformedRequest#head}). */
    static Filled fillMissing(MalformedRequest.Head h, byte[] bytes) {
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        if (h.requestLine().isBlank() || h.requestLine().startsWith("SIP/")) return null;
        String[] requestLine = h.requestLine().trim().split("\\s+");
        if (requestLine.length != 3) return null;
        java.util.Set<String> present = new java.util.HashSet<>();
        boolean via = false;
        for (MalformedRequest.Line l : h.lines()) {
            if (l.name().equals("via")) via = true;
            String canonical = SINGLE.get(l.name());
            if (canonical != null) present.add(canonical);
        }
        if (!via) return null;
        String eol = text.contains("\r\n") ? "\r\n" : "\n";
        StringBuilder add = new StringBuilder();
        java.util.List<String> missing = new java.util.ArrayList<>();
        if (!present.contains("call-id")) { missing.add("Call-ID"); add.append(eol).append("Call-ID: missing-").append(System.nanoTime()).append("@gateway.invalid"); }
        if (!present.contains("from")) { missing.add("From"); add.append(eol).append("From: <sip:missing@gateway.invalid>;tag=missing"); }
        if (!present.contains("to")) { missing.add("To"); add.append(eol).append("To: <sip:missing@gateway.invalid>"); }
        if (!present.contains("cseq")) { missing.add("CSeq"); add.append(eol).append("CSeq: 1 ").append(requestLine[0]); }
        if (missing.isEmpty()) return null;
        int end = h.bodyOffset() < 0 ? text.length() : h.bodyOffset();
        while (end > 0 && (text.charAt(end - 1) == '\n' || text.charAt(end - 1) == '\r')) end--; // the end of the last header line
        String fixed = text.substring(0, end) + add + text.substring(end);
        return new Filled(fixed.getBytes(StandardCharsets.ISO_8859_1), String.join(", ", missing));
    }

    /** "505 …" or "400 …" for a request the stock parser forgives, else null (also for every response). */
    static String violation(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        String head = end < 0 ? text : text.substring(0, end);
        String[] lines = head.split("\r?\n");
        int first = 0;
        while (first < lines.length && lines[first].isBlank()) first++; // keep-alive CRLFs before a message
        if (first >= lines.length || lines[first].startsWith("SIP/")) return null;
        String[] requestLine = lines[first].trim().split("\\s+");
        if (requestLine.length == 3 && !requestLine[2].equalsIgnoreCase("SIP/2.0")) return "505 SIP version " + requestLine[2];
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (int i = first + 1; i < lines.length; i++) {
            String line = lines[i];
            if (line.startsWith(" ") || line.startsWith("\t")) continue; // folded continuation
            int colon = line.indexOf(':');
            if (colon <= 0) continue;
            String canonical = SINGLE.get(line.substring(0, colon).trim().toLowerCase(Locale.ROOT));
            if (canonical != null && !seen.add(canonical)) return "400 more than one " + canonical + " header";
        }
        return null;
    }
}

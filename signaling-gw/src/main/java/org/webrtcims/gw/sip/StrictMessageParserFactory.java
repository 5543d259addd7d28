package org.webrtcims.gw.sip;

import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.parser.MessageParser;
import gov.nist.javax.sip.parser.MessageParserFactory;
import gov.nist.javax.sip.parser.ParseExceptionListener;
import gov.nist.javax.sip.parser.StringMsgParser;
import gov.nist.javax.sip.stack.SIPTransactionStack;

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
                {"max-forwards", null}, {"content-type", "c"}}) {
            SINGLE.put(n[0], n[0]);
            if (n[1] != null) SINGLE.put(n[1], n[0]);
        }
    }

    @Override
    public MessageParser createMessageParser(SIPTransactionStack stack) {
        StringMsgParser delegate = new StringMsgParser();
        return (byte[] bytes, boolean readBody, boolean strict, ParseExceptionListener listener) -> {
            String violation = violation(bytes);
            Filled filled = violation == null ? fillMissing(bytes) : null;
            if (filled != null) violation = "400 missing " + filled.missing;
            SIPMessage m = delegate.parseSIPMessage(filled != null ? filled.bytes : bytes, readBody, strict, listener);
            if (m != null && violation != null) m.addUnparsed(VIOLATION + violation);
            if (m != null && readBody) { // a datagram (TCP's pipelined parser reads bodies itself, by Content-Length)
                byte[] body = bodyWithoutContentLength(bytes);
                if (body != null && (m.getRawContent() == null || m.getRawContent().length == 0)) m.setMessageContent(body);
            }
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

    /** A request with placeholder headers added, and which ones were missing. */
    record Filled(byte[] bytes, String missing) { }

    /**
     * A request without Call-ID, From, To or CSeq is dropped by JAIN-SIP without a word. When it has a Via
     * (so a response can be routed) the missing headers get placeholders, the stack makes a transaction, and
     * the marked request is answered 400 (RFC 3261 §8.1.1, §8.2). Null when nothing is missing, for a
     * request without Via, and for every response.
     */
    static Filled fillMissing(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) return null;
        String[] lines = text.substring(0, end).split("\r\n");
        int first = 0;
        while (first < lines.length && lines[first].isBlank()) first++;
        if (first >= lines.length || lines[first].startsWith("SIP/")) return null;
        String[] requestLine = lines[first].trim().split("\\s+");
        if (requestLine.length != 3) return null;
        java.util.Set<String> present = new java.util.HashSet<>();
        boolean via = false;
        for (int i = first + 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon <= 0 || lines[i].startsWith(" ") || lines[i].startsWith("\t")) continue;
            String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
            if (name.equals("via") || name.equals("v")) via = true;
            String canonical = SINGLE.get(name);
            if (canonical != null) present.add(canonical);
        }
        if (!via) return null;
        StringBuilder add = new StringBuilder();
        java.util.List<String> missing = new java.util.ArrayList<>();
        if (!present.contains("call-id")) { missing.add("Call-ID"); add.append("\r\nCall-ID: missing-").append(System.nanoTime()).append("@gateway.invalid"); }
        if (!present.contains("from")) { missing.add("From"); add.append("\r\nFrom: <sip:missing@gateway.invalid>;tag=missing"); }
        if (!present.contains("to")) { missing.add("To"); add.append("\r\nTo: <sip:missing@gateway.invalid>"); }
        if (!present.contains("cseq")) { missing.add("CSeq"); add.append("\r\nCSeq: 1 ").append(requestLine[0]); }
        if (missing.isEmpty()) return null;
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
        Map<String, Integer> seen = new HashMap<>();
        for (int i = first + 1; i < lines.length; i++) {
            String line = lines[i];
            if (line.startsWith(" ") || line.startsWith("\t")) continue; // folded continuation
            int colon = line.indexOf(':');
            if (colon <= 0) continue;
            String canonical = SINGLE.get(line.substring(0, colon).trim().toLowerCase(Locale.ROOT));
            if (canonical != null && seen.merge(canonical, 1, Integer::sum) > 1) return "400 more than one " + canonical + " header";
        }
        return null;
    }
}

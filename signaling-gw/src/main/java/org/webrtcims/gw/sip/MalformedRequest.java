package org.webrtcims.gw.sip;

import gov.nist.javax.sip.parser.StringMsgParser;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What is wrong with a request that JAIN-SIP's parser rejects or forgives, said in words a SIP peer can read
 * (RFC 4475 §3.1.2 and §3.3), and a stand-in request that JAIN-SIP can parse so that the stack makes a
 * transaction and the gateway answers 400 on it, over UDP and on the request's own TCP connection alike
 * ({@link StrictMessageParserFactory}). The checks look at header text only, after unfolding; the real parsing
 * stays JAIN-SIP's.
 */
final class MalformedRequest {
    /** RFC 3261 token characters besides letters and digits. */
    private static final String TOKEN_MARKS = "-.!%*_+`'~";
    private static final Map<String, String> COMPACT = Map.of("f", "from", "t", "to", "m", "contact", "i", "call-id",
            "v", "via", "l", "content-length");

    private MalformedRequest() { }

    /** One header line, unfolded: its lower-case long name and its value. */
    record Line(String name, String value) { }

    /** The request line (or null) and the unfolded header lines of a message's head. */
    record Head(String requestLine, List<Line> lines, int bodyOffset) { }

    static Head head(byte[] bytes) {
        // JAIN-SIP's stream parser hands over the head with LF line ends, a datagram comes with CRLF
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        int start = 0;
        while (start < text.length() && (text.charAt(start) == '\r' || text.charAt(start) == '\n')) start++;
        int crlf = text.indexOf("\r\n\r\n", start);
        int lf = text.indexOf("\n\n", start);
        int end = crlf >= 0 && (lf < 0 || crlf < lf) ? crlf : lf;
        int bodyOffset = end < 0 ? -1 : end + (end == crlf ? 4 : 2);
        String head = end < 0 ? text.substring(start) : text.substring(start, end);
        String[] raw = head.split("\r?\n");
        List<Line> lines = new ArrayList<>();
        for (int i = 1; i < raw.length; i++) {
            String l = raw[i];
            if ((l.startsWith(" ") || l.startsWith("\t")) && !lines.isEmpty()) { // RFC 3261 §7.3.1 folding
                Line last = lines.remove(lines.size() - 1);
                lines.add(new Line(last.name(), last.value() + " " + l.trim()));
                continue;
            }
            int colon = l.indexOf(':');
            if (colon <= 0) continue;
            String name = l.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            lines.add(new Line(COMPACT.getOrDefault(name, name), l.substring(colon + 1).trim()));
        }
        return new Head(raw.length > 0 ? raw[0] : "", lines, bodyOffset);
    }

    /**
     * Why a request is malformed in a way JAIN-SIP forgives or reports only with an exception, or null. Covers
     * the Request-Line (RFC 3261 §25.1: single SP between its three parts, no brackets or headers in the
     * Request-URI), CSeq's range (§8.1.1.5), Content-Length (§20.14) and the name-addr rules of From, To and
     * Contact (§20.10: quotes that close, a quoted display name when it is not tokens, no spaces in `<>`,
     * `<>` around a URI with headers). `datagram`: the whole request came in one UDP datagram (a body shorter
     * than Content-Length is then an error, RFC 3261 §18.3; on a stream the parser waits for the rest).
     */
    static String diagnose(byte[] bytes, boolean datagram) {
        return diagnose(head(bytes), bytes, datagram);
    }

    /** {@link #diagnose(byte[], boolean)} with the request's head {@code h} already read ({@link #head}). */
    static String diagnose(Head h, byte[] bytes, boolean datagram) {
        String rl = h.requestLine();
        if (rl.endsWith(" ") || rl.endsWith("\t")) return "space after the SIP version in the Request-Line";
        if (rl.contains("  ") || rl.contains("\t")) return "more than one space between the parts of the Request-Line";
        String[] parts = rl.split(" ");
        if (parts.length != 3) return "whitespace inside the Request-URI";
        String ruri = parts[1];
        if (ruri.startsWith("<")) return "Request-URI enclosed in <>";
        String scheme = ruri.contains(":") ? ruri.substring(0, ruri.indexOf(':')).toLowerCase(Locale.ROOT) : "";
        if ((scheme.equals("sip") || scheme.equals("sips")) && hostPart(ruri).contains("?")) return "headers in the Request-URI";
        List<String> lengths = new ArrayList<>();
        for (Line l : h.lines()) {
            switch (l.name()) {
                case "cseq" -> {
                    String n = l.value().split("\\s+")[0];
                    if (n.matches("\\d+") && (n.length() > 10 || Long.parseLong(n) > 0xFFFFFFFFL)) return "CSeq number above 2**32-1";
                }
                case "content-length" -> {
                    if (!l.value().matches("\\d{1,9}")) return "Content-Length is not a number of octets";
                    lengths.add(l.value());
                }
                case "from", "to", "contact" -> {
                    String why = nameAddr(l.value(), !l.name().equals("contact"));
                    if (why != null) return why + " in " + display(l.name());
                }
                default -> { }
            }
        }
        if (lengths.size() > 1) return "more than one Content-Length";
        if (datagram && lengths.size() == 1 && h.bodyOffset() >= 0) {
            int declared = Integer.parseInt(lengths.get(0));
            int actual = bytes.length - h.bodyOffset();
            if (declared > actual) return "Content-Length " + declared + " larger than the body (" + actual + " octets)";
        }
        return null;
    }

    private static String display(String name) {
        return switch (name) {
            case "from" -> "From";
            case "to" -> "To";
            default -> "Contact";
        };
    }

    /** What is wrong with a From, To or Contact value, or null. `single`: one value (From, To), no comma list. */
    static String nameAddr(String value, boolean single) {
        if (!single && value.trim().equals("*")) return null;
        List<String> values = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        boolean angle = false;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (quoted && c == '\\' && i + 1 < value.length()) { cur.append(c).append(value.charAt(++i)); continue; }
            if (c == '"' && !angle) quoted = !quoted;
            else if (!quoted && c == '<') angle = true;
            else if (!quoted && c == '>') angle = false;
            if (!single && !quoted && !angle && c == ',') { values.add(cur.toString()); cur.setLength(0); continue; }
            cur.append(c);
        }
        if (quoted) return "unterminated quoted string";
        values.add(cur.toString());
        for (String v : values) {
            String t = v.trim();
            int lt = indexOutsideQuotes(t, '<');
            if (lt < 0) {
                String uri = hostPart(t).contains(";") ? t.substring(0, t.lastIndexOf('@') + 1 + hostPart(t).indexOf(';')).trim() : t;
                if (hostPart(uri).contains("?")) return "a URI with headers not enclosed in <>";
                if (uri.contains(" ") || uri.contains("\t")) return "whitespace in the URI";
                continue;
            }
            int gt = t.indexOf('>', lt);
            if (gt < 0) return "unclosed <";
            String inner = t.substring(lt + 1, gt);
            if (!inner.equals(inner.trim()) || inner.contains(" ")) return "whitespace inside <>";
            String name = t.substring(0, lt).trim();
            if (!name.isEmpty() && !name.startsWith("\"")) {
                for (String word : name.split("[ \t]+")) {
                    for (char c : word.toCharArray()) {
                        if (!Character.isLetterOrDigit(c) && TOKEN_MARKS.indexOf(c) < 0) {
                            return "an unquoted display name with '" + c + "'";
                        }
                    }
                }
            }
        }
        return null;
    }

    /** What follows the userinfo of a URI (its last '@'): host, port, parameters and headers. */
    private static String hostPart(String uri) {
        return uri.substring(uri.lastIndexOf('@') + 1);
    }

    private static int indexOutsideQuotes(String s, char target) {
        boolean quoted = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quoted && c == '\\') { i++; continue; }
            if (c == '"') quoted = !quoted;
            else if (!quoted && c == target) return i;
        }
        return -1;
    }

    /**
     * A request JAIN-SIP can parse in place of one it cannot: the same method (OPTIONS when the first word is
     * not a method token), a placeholder Request-URI, and the request's own top Via, Call-ID, From, To and CSeq
     * where each parses alone (placeholders where not), so that the 400 reaches the sender and matches its
     * transaction. Null when no Via parses (nowhere to send an answer) or for a response. `stream`: the request
     * came over a connection, where its Content-Length says how many body octets follow and are to be consumed.
     */
    static byte[] standIn(byte[] bytes, boolean stream) {
        Head h = head(bytes);
        String rl = h.requestLine();
        if (rl.startsWith("SIP/")) return null;
        String method = rl.split("[ \t]+")[0];
        if (!method.chars().allMatch(c -> Character.isLetterOrDigit(c) || TOKEN_MARKS.indexOf(c) >= 0) || method.isEmpty()) {
            method = "OPTIONS";
        }
        String via = null;
        String callId = null;
        String from = null;
        String to = null;
        String cseq = null;
        String length = "0";
        for (Line l : h.lines()) {
            switch (l.name()) {
                case "via" -> { if (via == null) via = firstViaThatParses(l.value()); }
                case "call-id" -> { if (callId == null && parses("Call-ID", l.value())) callId = l.value(); }
                case "from" -> { if (from == null && parses("From", l.value())) from = l.value(); }
                case "to" -> { if (to == null && parses("To", l.value())) to = l.value(); }
                case "cseq" -> {
                    if (cseq == null && parses("CSeq", l.value()) && l.value().trim().endsWith(method)
                            && l.value().trim().split("\\s+")[0].length() <= 10) cseq = l.value();
                }
                case "content-length" -> { if (stream && l.value().matches("\\d{1,9}")) length = l.value(); }
                default -> { }
            }
        }
        if (via == null) return null;
        String text = method + " sip:invalid@invalid.invalid SIP/2.0\r\n"
                + "Via: " + via + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "Call-ID: " + (callId != null ? callId : "malformed-" + System.nanoTime() + "@gateway.invalid") + "\r\n"
                + "From: " + (from != null ? from : "<sip:malformed@gateway.invalid>;tag=malformed") + "\r\n"
                + "To: " + (to != null ? to : "<sip:malformed@gateway.invalid>") + "\r\n"
                + "CSeq: " + (cseq != null ? cseq : "1 " + method) + "\r\n"
                + "Content-Length: " + length + "\r\n\r\n";
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** The first Via value that parses: the header's first value, or its sent-protocol and sent-by alone. */
    private static String firstViaThatParses(String value) {
        String first = value.split(",")[0].trim();
        if (parses("Via", first)) return first;
        String bare = first.split(";")[0].trim();
        return parses("Via", bare) ? bare : null;
    }

    private static boolean parses(String name, String value) {
        try {
            StringMsgParser.parseSIPHeader(name + ": " + value);
            return true;
        } catch (java.text.ParseException | RuntimeException e) {
            return false;
        }
    }
}

package org.webrtcims.gw.sip;

import javax.sip.header.RequireHeader;
import javax.sip.header.SupportedHeader;
import javax.sip.message.Message;
import java.nio.charset.StandardCharsets;
import java.util.ListIterator;

/** Reading option tags and SDP bodies off SIP messages. */
public final class SipHeaders {
    private SipHeaders() { }

    public static boolean requires(Message m, String tag) { return hasTag(m, RequireHeader.NAME, tag); }

    public static boolean supportsOrRequires(Message m, String tag) {
        return hasTag(m, SupportedHeader.NAME, tag) || hasTag(m, RequireHeader.NAME, tag);
    }

    private static boolean hasTag(Message m, String header, String tag) {
        for (String t : tokens(m, header)) if (t.equalsIgnoreCase(tag)) return true;
        return false;
    }

    /**
     * The comma-separated tokens of every header of that name (option tags of Supported/Require, methods of
     * Allow, packages of Allow-Events …), trimmed, in order, empty ones dropped. Null-safe for every shape a peer
     * may send: no such header, an empty one (RFC 3261 §25 allows `Supported:` with nothing), several headers of
     * the name, a comma list in one, a header the stack kept as an extension. JAIN-SIP stores a compact form
     * (`k:` for Supported, `u:` for Allow-Events) under the full name.
     */
    public static java.util.List<String> tokens(Message m, String header) {
        java.util.List<String> out = new java.util.ArrayList<>();
        if (m == null || header == null) return out;
        ListIterator<?> it = m.getHeaders(header);
        while (it != null && it.hasNext()) {
            String value = valueOf(it.next());
            if (value == null) continue;
            for (String t : value.split(",")) {
                String s = t.trim();
                if (!s.isEmpty()) out.add(s);
            }
        }
        return out;
    }

    /** A header's value as the peer wrote it (the text after "Name:"), or null when it has none. */
    static String valueOf(Object h) {
        if (h == null) return null;
        if (h instanceof javax.sip.header.OptionTag o) return o.getOptionTag();
        if (h instanceof javax.sip.header.AllowHeader a) return a.getMethod();
        if (h instanceof javax.sip.header.AllowEventsHeader e) return e.getEventType();
        if (h instanceof gov.nist.javax.sip.header.SIPHeader s) return s.getHeaderValue();
        String text = String.valueOf(h).trim();
        int colon = text.indexOf(':');
        return colon < 0 ? text : text.substring(colon + 1).trim();
    }

    /** The From tag, or null. */
    public static String fromTag(Message m) {
        javax.sip.header.FromHeader f = (javax.sip.header.FromHeader) m.getHeader(javax.sip.header.FromHeader.NAME);
        return f == null ? null : f.getTag();
    }

    /** The To tag, or null (an initial request, a CANCEL). */
    public static String toTag(Message m) {
        javax.sip.header.ToHeader t = (javax.sip.header.ToHeader) m.getHeader(javax.sip.header.ToHeader.NAME);
        return t == null ? null : t.getTag();
    }

    /** The SDP body, or null when there is none. */
    public static String sdp(Message m) {
        byte[] raw = m.getRawContent();
        if (raw == null || raw.length == 0) {
            Object c = m.getContent();
            return c == null ? null : c.toString();
        }
        return new String(raw, StandardCharsets.UTF_8);
    }
}

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
        ListIterator<?> it = m.getHeaders(header);
        while (it != null && it.hasNext()) {
            Object h = it.next();
            String value = h instanceof javax.sip.header.OptionTag o ? o.getOptionTag() : String.valueOf(h);
            for (String t : value.split(",")) if (t.trim().equalsIgnoreCase(tag)) return true;
        }
        return false;
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

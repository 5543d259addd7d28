package org.webrtcims.gw.config;

import java.net.InetSocketAddress;

/**
 * "host:port" as used by every address option, and how a host is written where a port may follow (RFC 3986 §3.2.2,
 * RFC 3261 §25.1 IPv6reference): an IPv6 address always in brackets, `[fd00::1]:5060`. {@link #host()} is the host
 * without brackets (what sockets and DNS take); {@link #toString()} writes it back bracketed. A bare IPv6 address
 * with a port (`fd00::1:5060`) is refused: whether its last group is the port cannot be told.
 */
public record HostPort(String host, int port) {
    public HostPort {
        if (host == null || host.isEmpty()) throw new IllegalArgumentException("empty host");
        host = bare(host);
    }

    public static HostPort parse(String value) {
        String v = value == null ? "" : value.trim();
        String host;
        String port;
        if (v.startsWith("[")) {
            int close = v.indexOf(']');
            if (close < 2 || close + 1 >= v.length() || v.charAt(close + 1) != ':') {
                throw new IllegalArgumentException("expected [IPv6]:port, got '" + value + "'");
            }
            host = v.substring(1, close);
            if (!host.contains(":")) throw new IllegalArgumentException("only an IPv6 address goes in brackets, got '" + value + "'");
            port = v.substring(close + 2);
        } else {
            int colon = v.lastIndexOf(':');
            if (colon <= 0 || colon == v.length() - 1) throw new IllegalArgumentException("expected host:port, got '" + value + "'");
            if (v.indexOf(':') != colon) {
                throw new IllegalArgumentException("an IPv6 address with a port goes in brackets ([ADDR]:PORT), got '" + value + "'");
            }
            host = v.substring(0, colon);
            port = v.substring(colon + 1);
        }
        int p;
        try {
            p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad port in '" + value + "'");
        }
        if (p < 0 || p > 65535) throw new IllegalArgumentException("port out of range in '" + value + "'");
        return new HostPort(host, p);
    }

    /** Whether `value` names a port: `host:port` or `[IPv6]:port` (a bare IPv6 address or a host alone has none). */
    public static boolean hasPort(String value) {
        if (value == null) return false;
        String v = value.trim();
        if (v.startsWith("[")) return v.contains("]:");
        int colon = v.lastIndexOf(':');
        return colon > 0 && v.indexOf(':') == colon;
    }

    /** The host without the brackets of an IPv6 reference. */
    public static String bare(String host) {
        if (host == null) return null;
        String h = host.trim();
        return h.length() > 1 && h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
    }

    /** The host as written before a port or in a URI: an IPv6 address in brackets, anything else as it is. */
    public static String uriHost(String host) {
        String h = bare(host);
        return h != null && h.contains(":") ? "[" + h + "]" : h;
    }

    /** Whether the host is an IPv6 address (with or without brackets). */
    public static boolean isIpv6(String host) {
        String h = bare(host);
        return h != null && h.contains(":");
    }

    /**
     * An address as RFC 5952 writes it (IPv6: lower case, the longest run of two or more zero groups as "::", no
     * leading zeros; Java's getHostAddress writes every group); IPv4 as usual.
     */
    public static String text(java.net.InetAddress a) {
        if (!(a instanceof java.net.Inet6Address)) return a.getHostAddress();
        byte[] b = a.getAddress();
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) g[i] = (b[2 * i] & 0xff) << 8 | (b[2 * i + 1] & 0xff);
        int bestAt = -1, bestLen = 1;
        for (int i = 0; i < 8; ) {
            if (g[i] != 0) { i++; continue; }
            int j = i;
            while (j < 8 && g[j] == 0) j++;
            if (j - i > bestLen) { bestAt = i; bestLen = j - i; }
            i = j;
        }
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestAt) {
                s.append("::");
                i += bestLen - 1;
                continue;
            }
            if (s.length() > 0 && s.charAt(s.length() - 1) != ':') s.append(':');
            s.append(Integer.toHexString(g[i]));
        }
        return s.toString();
    }

    public InetSocketAddress socketAddress() { return new InetSocketAddress(host, port); }

    @Override public String toString() { return uriHost(host) + ":" + port; }
}

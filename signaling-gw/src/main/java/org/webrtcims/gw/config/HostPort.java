package org.webrtcims.gw.config;

import java.net.InetSocketAddress;

/** "host:port" as used by every address option. */
public record HostPort(String host, int port) {
    public static HostPort parse(String value) {
        int colon = value == null ? -1 : value.lastIndexOf(':');
        if (colon <= 0 || colon == value.length() - 1) {
            throw new IllegalArgumentException("expected host:port, got '" + value + "'");
        }
        try {
            return new HostPort(value.substring(0, colon), Integer.parseInt(value.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad port in '" + value + "'");
        }
    }

    public InetSocketAddress socketAddress() { return new InetSocketAddress(host, port); }

    @Override public String toString() { return host + ":" + port; }
}

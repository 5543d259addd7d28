package org.webrtcims.gw.sip;

import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.config.HostPort;
import org.webrtcims.gw.net.LocalSockets;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Whom the gateway takes SIP requests from (docs/security.md "SIP sources"): `lab.sip.trusted-sources`, by
 * default the P-CSCF (lab.ims.proxy) — its address AND port. An entry `host:port` matches that source exactly
 * over UDP (Kamailio sends from its listening socket); over TCP/TLS also a connection from another port when the
 * connecting socket is held by the process that listens at host:port (the P-CSCF opens its connections to the
 * gateway from ephemeral ports; net/LocalSockets, for a P-CSCF on this host). An entry of a host alone opens every
 * port of it (an explicit choice, e.g. a test peer). Anything else — the P-CSCF's address from another port
 * included — is refused.
 */
public final class SipSources {
    private record Entry(String host, int port) { }

    private final List<Entry> trusted = new ArrayList<>();
    private final LocalSockets sockets;
    private final InetSocketAddress gateway;
    /** Whether lab.sip.trusted-sources was given (else the P-CSCF's address is the default). */
    private final boolean configured;

    public SipSources(GatewayProperties props, LocalSockets sockets) {
        this.sockets = sockets;
        InetSocketAddress listen = new InetSocketAddress(HostPort.bare(props.getSip().getHost()), props.getSip().getPort());
        // the P-CSCF's end of a connection to the gateway is connected to this address (any: not known in advance)
        this.gateway = listen.getAddress() != null && listen.getAddress().isAnyLocalAddress() ? null : listen;
        List<String> list = props.getSip().getTrustedSources().stream().map(String::trim).filter(x -> !x.isEmpty()).toList();
        this.configured = !list.isEmpty();
        if (list.isEmpty()) list = List.of(props.getIms().getProxy());
        for (String s : list) trusted.add(entry(s));
    }

    private static Entry entry(String s) {
        if (!HostPort.hasPort(s)) return new Entry(normalize(s), -1); // a host alone: a bare IPv6 address has no port
        HostPort hp = HostPort.parse(s);
        return new Entry(normalize(hp.host()), hp.port());
    }

    private static String normalize(String host) {
        String h = HostPort.bare(host);
        // only address literals are normalised (the one literal parser of the package, PcscfResolver's): a name
        // (lab.ims.proxy given as a domain, RFC 3263) is not looked up here (sip/Pcscf resolves it); it matches no
        // packet source
        InetAddress a = PcscfResolver.literal(h);
        return a != null ? a.getHostAddress() : h.toLowerCase(Locale.ROOT);
    }

    /** Whether a request from address:port over transport ("udp", "tcp", "tls") is taken. */
    public boolean accepts(String transport, String address, int port) {
        if (address == null) return false;
        String a = normalize(address);
        boolean stream = !"udp".equalsIgnoreCase(transport);
        for (Entry e : trusted) {
            if (!e.host().equals(a)) continue;
            if (e.port() < 0 || e.port() == port) return true;
            if (stream && LocalSockets.isLocal(addressOf(a))
                    && sockets.sameProcess("tcp", new InetSocketAddress(a, port), gateway, new InetSocketAddress(e.host(), e.port()))) {
                return true;
            }
        }
        return false;
    }

    /** Whether lab.sip.trusted-sources was given; false: the default, the P-CSCF (lab.ims.proxy). */
    public boolean configured() { return configured; }

    /** The trusted sources as configured, for logs. */
    public String describe() {
        return String.join(", ", trusted.stream().map(e -> e.port() < 0 ? e.host() + " (any port)" : new HostPort(e.host(), e.port()).toString()).toList());
    }

    private static InetAddress addressOf(String a) {
        try {
            return InetAddress.getByName(a);
        } catch (java.net.UnknownHostException e) {
            return null;
        }
    }
}

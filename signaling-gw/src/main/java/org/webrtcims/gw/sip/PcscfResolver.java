package org.webrtcims.gw.sip;

import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Section;
import org.xbill.DNS.AAAARecord;
import org.xbill.DNS.Address;
import org.xbill.DNS.Lookup;
import org.xbill.DNS.NAPTRRecord;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Resolver;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * Finds the P-CSCF as a UE does (TS 24.229 §9.2.1 → RFC 3263 §4, with dnsjava): for a domain name, NAPTR records
 * (services SIP+D2U, SIP+D2T, SIPS+D2T the gateway can speak, by order then preference) give the transport and an SRV
 * name; SRV records (by priority, then weighted at random, RFC 2782) give hosts and ports; A (or AAAA) records the
 * addresses. Without a usable NAPTR the SRV names _sip._udp/_sip._tcp/_sips._tcp are tried, without SRV the name's A
 * record on 5060 (5061 for TLS). HOST:PORT skips NAPTR and SRV (RFC 3263 §4.2), an address skips DNS altogether.
 * The answer is every target in the order to try them.
 */
public final class PcscfResolver {
    /** One place to send SIP to: an address literal, its port and transport; `how` says how DNS led there (logs). */
    public record Target(String address, int port, String transport, String how) {
        public String hostPort() { return new org.webrtcims.gw.config.HostPort(address, port).toString(); }
        @Override public String toString() { return hostPort() + " (" + transport + ")"; }
    }

    /** Nothing usable was found, or the value is malformed: the message says which name and why. */
    public static final class NotFound extends Exception {
        public NotFound(String message) { super(message); }
    }

    private static final Map<String, String> SERVICES = Map.of("SIP+D2U", "udp", "SIP+D2T", "tcp", "SIPS+D2T", "tls");
    private static final Map<String, String> SRV_PREFIX = Map.of("udp", "_sip._udp.", "tcp", "_sip._tcp.", "tls", "_sips._tcp.");

    private final Resolver dns;
    private final boolean useHostsFile;
    private final RandomGenerator random;
    private final String server;

    PcscfResolver(Resolver dns, boolean useHostsFile, RandomGenerator random, String server) {
        this.dns = dns;
        this.useHostsFile = useHostsFile;
        this.random = random;
        this.server = server;
    }

    /** A resolver asking `server` (ADDR or ADDR:PORT, IPv6 in brackets), or the system's resolvers when empty. */
    public static PcscfResolver of(String server) {
        String s = server == null ? "" : server.trim();
        if (s.isEmpty()) return new PcscfResolver(Lookup.getDefaultResolver(), true, RandomGenerator.getDefault(), "the system resolver");
        String host = s;
        int port = 53;
        int colon = s.lastIndexOf(':');
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            if (close < 0) throw new IllegalArgumentException("lab.ims.dns: bad address '" + s + "'");
            host = s.substring(1, close);
            if (close + 1 < s.length()) port = port(s.substring(close + 1), s);
        } else if (colon > 0 && s.indexOf(':') == colon) {
            host = s.substring(0, colon);
            port = port(s.substring(colon), s);
        }
        InetAddress addr = literal(host);
        if (addr == null) throw new IllegalArgumentException("lab.ims.dns wants an IP address (ADDR or ADDR:PORT), not '" + s + "'");
        SimpleResolver r = new SimpleResolver(new java.net.InetSocketAddress(addr, port));
        r.setTimeout(Duration.ofSeconds(2));
        return new PcscfResolver(r, false, RandomGenerator.getDefault(), "the DNS server " + s);
    }

    private static int port(String colonPort, String whole) {
        try {
            if (!colonPort.startsWith(":")) throw new NumberFormatException();
            int p = Integer.parseInt(colonPort.substring(1));
            if (p < 1 || p > 65535) throw new NumberFormatException();
            return p;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad port in '" + whole + "'");
        }
    }

    /** The address when `s` is an IPv4 or IPv6 literal (no brackets), else null; never a DNS query. */
    static InetAddress literal(String s) {
        int family = s.contains(":") ? Address.IPv6 : Address.IPv4;
        byte[] b = Address.toByteArray(s, family);
        if (b == null) return null;
        try {
            return InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /**
     * The targets for lab.ims.proxy `value`, in the order to try them. `transport` is lab.ims.transport: tls allows
     * only SIPS+D2T; udp or tcp allows both (the gateway listens on both), NAPTR deciding, this one first without
     * NAPTR. `ipv6`: look up AAAA records instead of A (the gateway's SIP address is IPv6).
     */
    public List<Target> resolve(String value, String transport, boolean ipv6) throws NotFound {
        String v = value == null ? "" : value.trim();
        if (v.isEmpty()) throw new NotFound("lab.ims.proxy is empty: give the P-CSCF as HOST:PORT or a domain name");
        String t = transport.toLowerCase(Locale.ROOT);
        List<String> allowed = t.equals("tls") ? List.of("tls") : t.equals("tcp") ? List.of("tcp", "udp") : List.of("udp", "tcp");
        String host = v;
        Integer port = null;
        if (v.startsWith("[")) {
            int close = v.indexOf(']');
            if (close < 0) throw new NotFound("lab.ims.proxy: bad address '" + v + "'");
            host = v.substring(1, close);
            if (close + 1 < v.length()) port = proxyPort(v.substring(close + 1), v);
        } else if (v.indexOf(':') > 0 && v.indexOf(':') == v.lastIndexOf(':')) {
            host = v.substring(0, v.indexOf(':'));
            port = proxyPort(v.substring(v.indexOf(':')), v);
        }
        int defaultPort = t.equals("tls") ? 5061 : 5060;
        InetAddress lit = literal(host);
        if (lit != null) return List.of(new Target(org.webrtcims.gw.config.HostPort.text(lit), port == null ? defaultPort : port, t, "address"));
        if (!host.matches("[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?\\.?")) {
            throw new NotFound("lab.ims.proxy: '" + v + "' is neither HOST:PORT nor a domain name");
        }
        if (port != null) {
            List<Target> out = addresses(host, port, t, ipv6, host + " " + (ipv6 ? "AAAA" : "A"));
            if (out.isEmpty()) throw new NotFound("no " + (ipv6 ? "AAAA" : "A") + " record for '" + host + "' (" + server + ")");
            return out;
        }
        List<Target> out = new ArrayList<>();
        for (NAPTRRecord n : naptr(host, allowed)) {
            String tr = SERVICES.get(n.getService().toUpperCase(Locale.ROOT));
            out.addAll(srv(n.getReplacement().toString(), tr, ipv6,
                    "NAPTR " + n.getOrder() + " " + n.getPreference() + " " + n.getService() + " → "));
        }
        if (out.isEmpty()) {
            // RFC 3263 §4.1: no NAPTR, so SRV for each transport the client supports, its preferred one first
            for (String tr : allowed) out.addAll(srv(SRV_PREFIX.get(tr) + host, tr, ipv6, ""));
        }
        if (out.isEmpty()) out.addAll(addresses(host, defaultPort, allowed.get(0), ipv6, host + " " + (ipv6 ? "AAAA" : "A")));
        if (out.isEmpty()) {
            throw new NotFound("no P-CSCF found for '" + host + "' (" + server + "): no NAPTR, SRV or "
                    + (ipv6 ? "AAAA" : "A") + " record for a transport the gateway speaks (" + String.join(", ", allowed) + ")");
        }
        return out;
    }

    private static int proxyPort(String colonPort, String whole) throws NotFound {
        try {
            return port(colonPort, whole);
        } catch (IllegalArgumentException e) {
            throw new NotFound("lab.ims.proxy: " + e.getMessage());
        }
    }

    /** The NAPTR records of `domain` for SIP over an allowed transport, terminal ("s" flag), by order then preference. */
    private List<NAPTRRecord> naptr(String domain, List<String> allowed) throws NotFound {
        List<NAPTRRecord> out = new ArrayList<>();
        for (Record r : lookup(domain, Type.NAPTR)) {
            if (!(r instanceof NAPTRRecord n)) continue;
            String tr = SERVICES.get(n.getService().toUpperCase(Locale.ROOT));
            if (tr == null || !allowed.contains(tr) || !n.getFlags().equalsIgnoreCase("s")) continue;
            out.add(n);
        }
        out.sort(Comparator.comparingInt(NAPTRRecord::getOrder).thenComparingInt(NAPTRRecord::getPreference));
        return out;
    }

    /** The targets of the SRV records of `name`: by priority, weighted at random within one (RFC 2782), each host's addresses. */
    private List<Target> srv(String name, String transport, boolean ipv6, String how) throws NotFound {
        List<SRVRecord> records = new ArrayList<>();
        for (Record r : lookup(name, Type.SRV)) if (r instanceof SRVRecord s) records.add(s);
        List<Target> out = new ArrayList<>();
        for (SRVRecord s : order(records)) {
            if (s.getTarget().equals(Name.root)) continue; // "." : the service is decidedly not offered here
            String host = s.getTarget().toString();
            out.addAll(addresses(host, s.getPort(), transport, ipv6,
                    how + "SRV " + name + " " + s.getPriority() + " " + s.getWeight() + " " + s.getPort() + " " + host));
        }
        return out;
    }

    /** RFC 2782: ascending priority; within one priority, weighted random selection without replacement. */
    List<SRVRecord> order(List<SRVRecord> records) {
        Map<Integer, List<SRVRecord>> byPriority = new java.util.TreeMap<>();
        for (SRVRecord r : records) byPriority.computeIfAbsent(r.getPriority(), k -> new ArrayList<>()).add(r);
        List<SRVRecord> out = new ArrayList<>();
        for (List<SRVRecord> group : byPriority.values()) {
            List<SRVRecord> left = new ArrayList<>();
            group.stream().filter(r -> r.getWeight() == 0).forEach(left::add); // zero weights first, as the RFC orders them
            group.stream().filter(r -> r.getWeight() != 0).forEach(left::add);
            while (!left.isEmpty()) {
                int total = left.stream().mapToInt(SRVRecord::getWeight).sum();
                // RFC 2782 draws from [0, total] so that a weight-0 record has a small chance; without one, [1, total]
                // keeps the shares exactly proportional to the weights
                boolean zero = left.get(0).getWeight() == 0;
                int pick = total == 0 ? 0 : zero ? random.nextInt(total + 1) : 1 + random.nextInt(total);
                int sum = 0;
                SRVRecord chosen = left.get(left.size() - 1);
                for (SRVRecord r : left) {
                    sum += r.getWeight();
                    if (sum >= pick) {
                        chosen = r;
                        break;
                    }
                }
                left.remove(chosen);
                out.add(chosen);
            }
        }
        return out;
    }

    private List<Target> addresses(String host, int port, String transport, boolean ipv6, String how) throws NotFound {
        Map<String, Target> out = new LinkedHashMap<>();
        for (Record r : lookup(host, ipv6 ? Type.AAAA : Type.A)) {
            InetAddress a = r instanceof ARecord ar ? ar.getAddress() : r instanceof AAAARecord aaaa ? aaaa.getAddress() : null;
            if (a != null) out.putIfAbsent(a.getHostAddress(), new Target(org.webrtcims.gw.config.HostPort.text(a), port, transport, how));
        }
        return new ArrayList<>(out.values());
    }

    /**
     * The records of one type at an absolute name (CNAMEs the server followed included); none when the name or type
     * does not exist (NXDOMAIN, or an empty answer). Any other answer, or none, is an error naming the query.
     */
    private Record[] lookup(String name, int type) throws NotFound {
        Name n;
        try {
            n = Name.fromString(name, Name.root);
        } catch (TextParseException e) {
            throw new NotFound("'" + name + "' is not a DNS name");
        }
        if (useHostsFile && (type == Type.A || type == Type.AAAA)) {
            try {
                java.util.Optional<InetAddress> h = Lookup.getDefaultHostsFileParser().getAddressForHost(n, type);
                if (h.isPresent()) {
                    return new Record[] {type == Type.A ? new ARecord(n, DClass.IN, 0, h.get()) : new AAAARecord(n, DClass.IN, 0, h.get())};
                }
            } catch (java.io.IOException | RuntimeException e) {
                // no readable hosts file: DNS alone
            }
        }
        Message answer;
        try {
            answer = dns.send(Message.newQuery(Record.newRecord(n, type, DClass.IN)));
        } catch (java.io.IOException e) {
            throw new NotFound("no answer to the DNS query " + Type.string(type) + " " + name + " from " + server);
        }
        int rcode = answer.getRcode();
        if (rcode == Rcode.NXDOMAIN) return new Record[0];
        if (rcode != Rcode.NOERROR) {
            throw new NotFound("the DNS query " + Type.string(type) + " " + name + " failed at " + server + ": " + Rcode.string(rcode));
        }
        return answer.getSection(Section.ANSWER).stream().filter(r -> r.getType() == type).toArray(Record[]::new);
    }
}

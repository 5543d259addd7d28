package org.webrtcims.gw.sip;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.config.GatewayProperties;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;

/**
 * The P-CSCF the gateway uses now, the one owner of it: the targets lab.ims.proxy resolves to (PcscfResolver, RFC 3263)
 * and which of them is current. Requests (SipRequests' Route, the UA's transport) go to {@link #current()}; when it
 * stops answering a REGISTER (timeout, transport error, 503) {@link #failover} moves to the next target and tells the
 * listeners (the calls through the old one end). The trust check asks {@link #isPcscfAddress}.
 */
@Component
public class Pcscf {
    private static final Logger log = LoggerFactory.getLogger(Pcscf.class);

    private final String configured;
    private final String transport;
    private final boolean ipv6;
    private final PcscfResolver resolver;
    private final List<BiConsumer<PcscfResolver.Target, String>> listeners = new CopyOnWriteArrayList<>();
    private List<PcscfResolver.Target> targets = List.of();
    /** Every address resolved so far (a request from a previous P-CSCF of the set is still one of ours). */
    private final java.util.Set<String> known = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** The same as address + " " + port, for the UDP source check. */
    private final java.util.Set<String> knownPorts = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private int index;
    private String lastError = "";

    @org.springframework.beans.factory.annotation.Autowired
    public Pcscf(GatewayProperties props) {
        this(props, PcscfResolver.of(props.getIms().getDns()));
    }

    Pcscf(GatewayProperties props, PcscfResolver resolver) {
        this.configured = props.getIms().getProxy();
        String t = props.getIms().getTransport();
        this.transport = t == null ? "udp" : t.trim().toLowerCase(Locale.ROOT);
        String host = props.getSip().getHost();
        this.ipv6 = host != null && host.contains(":");
        this.resolver = resolver;
        synchronized (this) {
            if (!resolveNow()) log.error("P-CSCF: {} (tried again at the next request)", lastError);
        }
    }

    private boolean resolveNow() {
        try {
            List<PcscfResolver.Target> found = resolver.resolve(configured, transport, ipv6);
            targets = List.copyOf(found);
            index = 0;
            found.forEach(x -> {
                known.add(normal(x.address())); // the form isPcscf compares (Java's getHostAddress)
                knownPorts.add(normal(x.address()) + " " + x.port());
            });
            if (!found.get(0).how().equals("address")) {
                log.info("P-CSCF {} found by DNS, in the order tried: {}", configured,
                        found.stream().map(x -> x + " [" + x.how() + "]").toList());
            }
            return true;
        } catch (PcscfResolver.NotFound e) {
            lastError = e.getMessage();
            return false;
        }
    }

    /** The target requests go to now; resolves again when nothing was found before. */
    public synchronized PcscfResolver.Target current() {
        if (targets.isEmpty() && !resolveNow()) throw new IllegalStateException(lastError);
        return targets.get(index);
    }

    /** udp, tcp or tls toward the current target (from NAPTR for a domain); lab.ims.transport while none is known. */
    public synchronized String transport() {
        return targets.isEmpty() ? transport : targets.get(index).transport();
    }

    /** All targets in the order tried, the current one included. */
    public synchronized List<PcscfResolver.Target> targets() { return targets; }

    /** lab.ims.proxy as given (HOST:PORT or a domain). */
    public String configured() { return configured; }

    /**
     * `failed` did not answer (why: for logs and the calls ended): when it is still the current target and another one
     * is known, the next one becomes current (after the last: the set is resolved again, starting at its first) and
     * the listeners hear of the failed one. False when there is nothing else to try.
     */
    public boolean failover(PcscfResolver.Target failed, String why) {
        PcscfResolver.Target next;
        synchronized (this) {
            if (targets.isEmpty() || !targets.get(index).equals(failed)) return !targets.isEmpty(); // moved already
            if (index + 1 < targets.size()) {
                index++;
            } else {
                List<PcscfResolver.Target> before = targets;
                if (!resolveNow()) targets = before;
                index = 0;
            }
            next = targets.get(index);
            if (next.equals(failed)) return false;
        }
        log.warn("P-CSCF {} {}: moving to {} [{}]", failed, why, next, next.how());
        for (BiConsumer<PcscfResolver.Target, String> l : listeners) l.accept(failed, why);
        return true;
    }

    /** Told (failed target, why) after each failover. */
    public void onFailover(BiConsumer<PcscfResolver.Target, String> listener) { listeners.add(listener); }

    /** Whether `address` (an IP literal as the stack reports a source) is one of the P-CSCF addresses resolved. */
    public boolean isPcscfAddress(String address) {
        String a = normal(address);
        return a != null && known.contains(a);
    }

    /**
     * Whether a request from address:port over `transport` comes from one of the P-CSCFs resolved: over UDP the
     * P-CSCF sends from the socket it listens on, so address and port must be a target's; over TCP/TLS its
     * connections come from ephemeral ports, so the address decides.
     */
    public boolean isPcscf(String address, int port, String transport) {
        String a = normal(address);
        if (a == null || !known.contains(a)) return false;
        return transport != null && !transport.equalsIgnoreCase("udp") || knownPorts.contains(a + " " + port);
    }

    private static String normal(String address) {
        if (address == null) return null;
        java.net.InetAddress a = PcscfResolver.literal(address.startsWith("[") && address.endsWith("]")
                ? address.substring(1, address.length() - 1) : address);
        return a == null ? null : a.getHostAddress();
    }
}

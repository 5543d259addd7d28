package org.webrtcims.gw.sip;

import java.util.List;

/**
 * The gateway's P-CSCF discovery from the command line, for `./lab ... --ims external --pcscf NAME` (harness/lib/imsext.sh:
 * it needs the P-CSCF's address to pick the local address toward it) and for trying a core's DNS by hand:
 * <pre>java -cp signaling-gw.jar -Dloader.main=org.webrtcims.gw.sip.PcscfLookup \
 *     org.springframework.boot.loader.launch.PropertiesLauncher VALUE [udp|tcp|tls] [DNS-ADDR[:PORT]] [ipv4|ipv6]</pre>
 * Prints one line per target in the order the gateway tries them, "ADDRESS PORT TRANSPORT how-it-was-found" (an IPv6
 * ADDRESS without brackets); exit 1 with the reason on stderr when nothing is found. ipv6: AAAA records instead of A,
 * as the gateway asks when its own SIP address is IPv6 (`./lab ... --ims external --ipv6`).
 */
public final class PcscfLookup {
    private PcscfLookup() { }

    public static void main(String[] args) {
        if (args.length < 1 || args.length > 4) {
            System.err.println("usage: PcscfLookup HOST:PORT|DOMAIN [udp|tcp|tls] [DNS-ADDR[:PORT]] [ipv4|ipv6]");
            System.exit(2);
        }
        String transport = args.length > 1 ? args[1] : "udp";
        if (!List.of("udp", "tcp", "tls").contains(transport)) {
            System.err.println("transport must be udp, tcp or tls, not '" + transport + "'");
            System.exit(2);
        }
        String family = args.length > 3 ? args[3] : "ipv4";
        if (!List.of("ipv4", "ipv6").contains(family)) {
            System.err.println("address family must be ipv4 or ipv6, not '" + family + "'");
            System.exit(2);
        }
        try {
            PcscfResolver r = PcscfResolver.of(args.length > 2 ? args[2] : "");
            for (PcscfResolver.Target t : r.resolve(args[0], transport, family.equals("ipv6"))) {
                System.out.println(t.address() + " " + t.port() + " " + t.transport() + " " + t.how());
            }
        } catch (PcscfResolver.NotFound | IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(1);
        }
    }
}

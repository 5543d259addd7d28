package org.webrtcims.gw.config;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.webrtcims.gw.media.DtmfLogEvent;
import org.webrtcims.gw.media.DtmfLogListener;
import org.webrtcims.gw.media.NgClient;
import org.webrtcims.gw.media.RtpEngineBreaker;
import org.webrtcims.gw.media.RtpEngineClient;
import org.webrtcims.gw.media.RtpEngineLegs;
import org.webrtcims.gw.media.RtpEngineRelay;
import org.webrtcims.gw.media.RtpEngineRelays;
import org.webrtcims.gw.metrics.GatewayMetrics;
import org.webrtcims.gw.metrics.SetupTimeline;
import org.webrtcims.gw.metrics.WarmupCalls;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** Wires the rtpengine ng client and the DTMF log listener from the `lab.rtpengine.*` options. */
@Configuration
public class MediaConfig {
    private static final Logger log = LoggerFactory.getLogger(MediaConfig.class);

    /**
     * The rtpengine instances of `lab.rtpengine.ng` (one "host:port" or a comma-separated list, docs/scale-out.md),
     * each with its ng client and a breaker that fails its commands fast while it does not answer and pings it every
     * lab.rtpengine.probe-ms meanwhile.
     */
    static List<RtpEngineRelay> relays(RtpengineProperties r, GatewayMetrics metrics, WarmupCalls warmups) {
        List<RtpEngineRelay> out = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (String one : r.getNg().split(",")) {
            if (one.isBlank()) continue;
            if (!seen.add(one.trim())) throw new IllegalArgumentException("lab.rtpengine.ng names " + one.trim() + " twice: '" + r.getNg() + "'");
            NgClient ng = new NgClient(HostPort.parse(one.trim()).socketAddress(), Duration.ofMillis(r.getTimeoutMs()),
                    r.getAttempts(), metrics, warmups);
            out.add(new RtpEngineRelay(ng, new RtpEngineBreaker(String.valueOf(ng.server()), Duration.ofMillis(r.getProbeMs()))));
        }
        if (out.isEmpty()) throw new IllegalArgumentException("lab.rtpengine.ng names no rtpengine: '" + r.getNg() + "'");
        return out;
    }

    /**
     * UE → browser DTMF (docs/media.md "DTMF"); off when `lab.rtpengine.dtmf-log` is empty. The consumer is the
     * call layer's DTMF owner, found by type: config/ does not import call/ (docs/architecture.md, package map).
     */
    @Bean(destroyMethod = "close")
    public DtmfLogListener dtmfLogListener(GatewayProperties props, Consumer<DtmfLogEvent> calls, RtpEngineClient rtp) {
        // rtpengine logs its own call-id: the gateway's behind the session prefix; other gateways' events are not ours.
        Consumer<DtmfLogEvent> relay = e -> {
            String id = rtp.callIdOf(e.callId());
            if (id != null) calls.accept(new DtmfLogEvent(id, e.sourceTag(), e.event(), e.durationMs()));
        };
        String where = props.getRtpengine().getDtmfLog();
        if (where == null || where.isBlank()) {
            log.info("lab.rtpengine.dtmf-log is empty: DTMF from IMS is not forwarded to browsers");
            return DtmfLogListener.off();
        }
        return DtmfLogListener.start(HostPort.parse(where).socketAddress(), rtpengineSender(r(props)), relay);
    }

    private static RtpengineProperties r(GatewayProperties props) { return props.getRtpengine(); }

    /**
     * Whether a DTMF log datagram comes from rtpengine (docs/security.md "DTMF from rtpengine"). rtpengine 10.5
     * sends it over UDP only (`--dtmf-log-dest=IP:PORT`; no Unix socket), from an ephemeral port of a socket it
     * connects once at start. An rtpengine on this host: the sending socket must be held by the process that
     * holds its ng socket (net/LocalSockets, /proc), which a forger on the loopback cannot fake. An rtpengine on
     * another host: its address (the ng host) is all that can be checked.
     */
    static java.util.function.Predicate<java.net.InetSocketAddress> rtpengineSender(RtpengineProperties r) {
        org.webrtcims.gw.net.LocalSockets sockets = new org.webrtcims.gw.net.LocalSockets();
        List<java.net.InetSocketAddress> ngs = new java.util.ArrayList<>();
        for (String ng : r.getNg().split(",")) if (!ng.isBlank()) ngs.add(HostPort.parse(ng.trim()).socketAddress());
        return from -> ngs.stream().anyMatch(ng -> org.webrtcims.gw.net.LocalSockets.isLocal(ng.getAddress())
                ? sockets.sameProcess("udp", from, null, ng)
                : ng.getAddress() != null && ng.getAddress().equals(from.getAddress()));
    }

    /** The relay set: every rtpengine of `lab.rtpengine.ng`, call affinity, health (closed with the context). */
    @Bean(destroyMethod = "close")
    public RtpEngineRelays rtpEngineRelays(GatewayProperties props, GatewayMetrics metrics, SetupTimeline timeline,
                                           WarmupCalls warmups) {
        List<RtpEngineRelay> relays = relays(props.getRtpengine(), metrics, warmups);
        if (relays.size() > 1) log.info("{} rtpengine relays: {}", relays.size(), relays.stream().map(RtpEngineRelay::name).toList());
        return new RtpEngineRelays(relays, timeline);
    }

    /** Whether the IMS leg is IPv6: lab.rtpengine.ims-address-family, or by default the family of lab.sip.host. */
    static boolean imsIpv6(GatewayProperties props) {
        String f = props.getRtpengine().getImsAddressFamily() == null ? "" : props.getRtpengine().getImsAddressFamily().trim();
        if (f.isEmpty()) return HostPort.isIpv6(props.getSip().getHost());
        if (f.equalsIgnoreCase("IP6")) return true;
        if (f.equalsIgnoreCase("IP4")) return false;
        throw new IllegalArgumentException("lab.rtpengine.ims-address-family must be IP4 or IP6 (or empty: the family of lab.sip.host), not '" + f + "'");
    }

    /** The ng commands over the relay set, with the legs' interfaces and ICE-lite and the session prefix. */
    @Bean
    public RtpEngineClient rtpEngineClient(GatewayProperties props, RtpEngineRelays relays) {
        RtpengineProperties r = props.getRtpengine();
        String browser = r.getBrowserInterface().isBlank() ? null : r.getBrowserInterface();
        String ims = r.getImsInterface().isBlank() ? null : r.getImsInterface();
        String prefix = r.getSessionPrefix().isBlank() ? "gw" + props.getSip().getPort() + "-" : r.getSessionPrefix();
        return new RtpEngineClient(relays, new RtpEngineLegs(browser, ims, RtpEngineLegs.IceLite.parse(r.getIceLite()), imsIpv6(props),
                RtpEngineLegs.dtlsOnActpass(r.getDtlsOnActpass()), RtpEngineLegs.LiteInAnswers.parse(r.getIceLiteInAnswers())), prefix);
    }
}

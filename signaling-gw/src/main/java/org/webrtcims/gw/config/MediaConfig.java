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
import org.webrtcims.gw.metrics.GatewayMetrics;

import java.time.Duration;
import java.util.function.Consumer;

/** Wires the rtpengine ng client and the DTMF log listener from the `lab.rtpengine.*` options. */
@Configuration
public class MediaConfig {
    private static final Logger log = LoggerFactory.getLogger(MediaConfig.class);

    @Bean(destroyMethod = "close")
    public NgClient ngClient(GatewayProperties props, GatewayMetrics metrics) {
        GatewayProperties.Rtpengine r = props.getRtpengine();
        return new NgClient(HostPort.parse(r.getNg()).socketAddress(), Duration.ofMillis(r.getTimeoutMs()), r.getAttempts(),
                metrics);
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
        return DtmfLogListener.start(HostPort.parse(where).socketAddress(), relay);
    }

    /** Fails ng commands fast while rtpengine is down; pings it every lab.rtpengine.probe-ms meanwhile. */
    @Bean(destroyMethod = "close")
    public RtpEngineBreaker rtpEngineBreaker(NgClient ng, GatewayProperties props) {
        return new RtpEngineBreaker(String.valueOf(ng.server()), Duration.ofMillis(props.getRtpengine().getProbeMs()));
    }

    @Bean
    public RtpEngineClient rtpEngineClient(NgClient ng, GatewayProperties props, RtpEngineBreaker breaker) {
        GatewayProperties.Rtpengine r = props.getRtpengine();
        String browser = r.getBrowserInterface().isBlank() ? null : r.getBrowserInterface();
        String ims = r.getImsInterface().isBlank() ? null : r.getImsInterface();
        String prefix = r.getSessionPrefix().isBlank() ? "gw" + props.getSip().getPort() + "-" : r.getSessionPrefix();
        return new RtpEngineClient(ng, new RtpEngineClient.Legs(browser, ims, r.isIceLite()), breaker, prefix);
    }
}

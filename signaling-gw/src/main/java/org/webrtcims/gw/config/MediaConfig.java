package org.webrtcims.gw.config;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.webrtcims.gw.media.NgClient;
import org.webrtcims.gw.media.RtpEngineClient;

import java.time.Duration;

/** Wires the rtpengine ng client from the `lab.rtpengine.*` options. */
@Configuration
public class MediaConfig {
    @Bean(destroyMethod = "close")
    public NgClient ngClient(GatewayProperties props) {
        GatewayProperties.Rtpengine r = props.getRtpengine();
        return new NgClient(HostPort.parse(r.getNg()).socketAddress(), Duration.ofMillis(r.getTimeoutMs()), r.getAttempts());
    }

    @Bean
    public RtpEngineClient rtpEngineClient(NgClient ng) {
        return new RtpEngineClient(ng);
    }
}

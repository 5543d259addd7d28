package org.webrtcims.gw.config;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.webrtcims.gw.media.DataChannelClient;
import org.webrtcims.gw.media.DataChannelLegs;
import org.webrtcims.gw.media.NgClient;
import org.webrtcims.gw.media.RtpEngineClient;

import java.time.Duration;

/** Wires the data-channel endpoint's client from `lab.datachannel.*` (none when lab.datachannel.ng is empty). */
@Configuration
public class DataChannelConfig {
    private static final Logger log = LoggerFactory.getLogger(DataChannelConfig.class);

    /** The calls' data-channel sections; the endpoint's call-ids carry the rtpengine session prefix. */
    @Bean
    public DataChannelLegs dataChannelLegs(DataChannelProperties props, RtpEngineClient rtp) {
        if (props.getNg() == null || props.getNg().isBlank()) {
            log.info("lab.datachannel.ng is empty: no data-channel endpoint, data-channel sections are refused (port 0)");
            return DataChannelLegs.off();
        }
        NgClient ng = new NgClient(HostPort.parse(props.getNg().trim()).socketAddress(), Duration.ofMillis(props.getTimeoutMs()),
                props.getAttempts()); // not in gw_ng_latency: those figures are rtpengine's
        log.info("data-channel endpoint at {}", ng.server());
        return new DataChannelLegs(new DataChannelClient(ng, rtp.sessionPrefix()));
    }
}

package org.webrtcims.gw.config;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * `lab.datachannel.*`: the data-channel endpoint the gateway drives (media-relay/datachannel, docs/datachannel.md).
 * Kept apart from {@link GatewayProperties} (one class per concern): only the data-channel wiring reads it.
 */
@ConfigurationProperties(prefix = "lab.datachannel")
public class DataChannelProperties {
    /**
     * The endpoint's control address, host:port (`./lab` gives LAB_DATACHANNEL_CTL); empty = no endpoint: an SDP's
     * data-channel section is then refused (port 0 in the answer, not offered onward), the call goes on without it.
     */
    private String ng = "";
    private int timeoutMs = 1000;
    private int attempts = 3;

    public String getNg() { return ng; }
    public void setNg(String ng) { this.ng = ng; }
    public int getTimeoutMs() { return timeoutMs; }
    public void setTimeoutMs(int timeoutMs) { this.timeoutMs = timeoutMs; }
    public int getAttempts() { return attempts; }
    public void setAttempts(int attempts) { this.attempts = attempts; }
}

package org.webrtcims.gw.api;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The gateway as WWSF/WAF for WICs using Gm (TS 24.371 §5, §7.2; docs/security.md "WIC access tokens"): `lab.wic.*`.
 * Without a key file the gateway issues no access tokens (POST /api/v1/wic-tokens answers 404 wic-off).
 */
@ConfigurationProperties(prefix = "lab.wic")
public class WicTokenProperties {
    /** The HS256 key shared with the eP-CSCF (a file of at least 32 bytes, mode 0600; never on the command line). */
    private String keyFile = "";
    /** An access token's lifetime; the page fetches a fresh one (with the current one) before it runs out. */
    private int ttlSeconds = 300;
    /** The eP-CSCF's SIP-over-WebSocket URL handed to the page (ws:// on loopback, wss:// beyond it). */
    private String wsUrl = "";

    public String getKeyFile() { return keyFile; }
    public void setKeyFile(String v) { this.keyFile = v; }
    public int getTtlSeconds() { return ttlSeconds; }
    public void setTtlSeconds(int v) {
        if (v < 10 || v > 3600) throw new IllegalArgumentException("lab.wic.ttl-seconds: 10 to 3600, got " + v);
        this.ttlSeconds = v;
    }
    public String getWsUrl() { return wsUrl; }
    public void setWsUrl(String v) {
        if (v != null && !v.isEmpty() && !v.matches("wss?://[^\\s/]+(/[^\\s]*)?")) {
            throw new IllegalArgumentException("lab.wic.ws-url: a ws:// or wss:// URL, got '" + v + "'");
        }
        this.wsUrl = v;
    }
}

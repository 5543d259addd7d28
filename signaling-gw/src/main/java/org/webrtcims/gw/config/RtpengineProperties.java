package org.webrtcims.gw.config;

/** rtpengine (`lab.rtpengine.*`): where its ng port is, its legs' interfaces, and the gateway's timers around it. */
public class RtpengineProperties {
    /**
     * rtpengine's ng address, host:port; or a comma-separated list of several rtpengine instances, across which
     * new calls are balanced with call affinity (media/RtpEngineRelays, docs/scale-out.md).
     */
    private String ng = "127.0.0.1:2223";
    private int timeoutMs = 1000;
    private int attempts = 3;
    /** rtpengine's interface names (--interface=NAME/ADDR) for the browser and IMS legs; empty = unnamed. */
    private String browserInterface = "";
    private String imsInterface = "";
    /**
     * Where rtpengine is ICE-lite toward the browser (media/RtpEngineLegs.IceLite): `true` (every call, the
     * default), `mt` (calls whose first offer comes from IMS; full ICE where the browser offers), `false` (none).
     */
    private String iceLite = "true";
    public String getBrowserInterface() { return browserInterface; }
    public void setBrowserInterface(String browserInterface) { this.browserInterface = browserInterface; }
    public String getImsInterface() { return imsInterface; }
    public void setImsInterface(String imsInterface) { this.imsInterface = imsInterface; }
    /**
     * The IMS leg's address family, IP4 or IP6; empty = IP6 when lab.sip.host is an IPv6 address (Gm over IPv6:
     * the IMS leg's SDP then says c=IN IP6, the browser leg stays IPv4; rtpengine needs an IPv6 address on its
     * IMS interface). docs/media.md "IPv6 toward IMS".
     */
    private String imsAddressFamily = "";
    public String getImsAddressFamily() { return imsAddressFamily; }
    public void setImsAddressFamily(String v) { this.imsAddressFamily = v; }
    public String getIceLite() { return iceLite; }
    public void setIceLite(String iceLite) { this.iceLite = iceLite; }
    /**
     * Whether rtpengine's answer to the offer of a browser that opened the call says `a=ice-lite` (media/RtpEngineLegs
     * #hidesLiteInAnswer): `auto` (the default) leaves it out when the offer's host candidates name one address, so
     * that Chromium nominates with its first check and the DTLS handshake starts ~50 ms sooner, and keeps it for a
     * browser with several (a second interface, a VPN: without it such a browser may nominate a pair rtpengine cannot
     * answer, and the call has no media); `true` keeps it always, as rtpengine writes it; `false` leaves it out always.
     * Offers to the browser always say it. docs/media.md "What the browser is told".
     */
    private String iceLiteInAnswers = "auto";
    public String getIceLiteInAnswers() { return iceLiteInAnswers; }
    public void setIceLiteInAnswers(String v) { this.iceLiteInAnswers = v; }
    /**
     * rtpengine's DTLS role toward a browser whose offer says `a=setup:actpass` (every browser's): `active` (the
     * default: rtpengine sends the ClientHello, and a lost last flight of the handshake is the browser's to resend),
     * `passive` (the browser does, as soon as its ICE check succeeds) or `auto` (`passive` where rtpengine is ICE-lite
     * on the call, `active` where it runs full ICE). rtpengine 10.5 as DTLS server never resends its last flight, so
     * with `passive` or `auto` one lost datagram can leave a call without media. docs/media.md "Which role toward an
     * actpass browser", "A lost last DTLS flight".
     */
    private String dtlsOnActpass = "active";
    public String getDtlsOnActpass() { return dtlsOnActpass; }
    public void setDtlsOnActpass(String v) { this.dtlsOnActpass = v; }

    /**
     * A confirmed call whose browser leg has carried no media toward IMS after this long is hung up
     * with reason {@code media-timeout} (call/MediaStartWatch); 0 = never.
     */
    private long mediaStartTimeoutMs = 10000;
    public long getMediaStartTimeoutMs() { return mediaStartTimeoutMs; }
    public void setMediaStartTimeoutMs(long mediaStartTimeoutMs) { this.mediaStartTimeoutMs = mediaStartTimeoutMs; }

    /** Where rtpengine sends its DTMF log (its --dtmf-log-dest), host:port; empty = not listened to. */
    private String dtmfLog = "127.0.0.1:2224";
    public String getNg() { return ng; }
    public String getDtmfLog() { return dtmfLog; }
    public void setDtmfLog(String dtmfLog) { this.dtmfLog = dtmfLog; }
    public void setNg(String ng) { this.ng = ng; }
    public int getTimeoutMs() { return timeoutMs; }
    public void setTimeoutMs(int timeoutMs) { this.timeoutMs = timeoutMs; }
    public int getAttempts() { return attempts; }
    public void setAttempts(int attempts) { this.attempts = attempts; }

    /**
     * While rtpengine does not answer (an ng command got no reply after all attempts), ng commands fail at
     * once (`media-failed`) and rtpengine is pinged this often; the first pong ends that (media/RtpEngineBreaker).
     */
    private long probeMs = 1000;
    public long getProbeMs() { return probeMs; }
    public void setProbeMs(long probeMs) { this.probeMs = probeMs; }

    /**
     * How long a browser request for an ended call's final media counters waits for the teardown's
     * rtpengine delete, which runs off the SIP thread (call/CallMedia.release).
     */
    private long releaseWaitMs = 4000;
    public long getReleaseWaitMs() { return releaseWaitMs; }
    public void setReleaseWaitMs(long releaseWaitMs) { this.releaseWaitMs = releaseWaitMs; }

    /**
     * Put before every call-id the gateway sends rtpengine, so that its sessions are told from other
     * gateways' (and loadgen's) on the same rtpengine; empty = `gw<lab.sip.port>-`.
     */
    private String sessionPrefix = "";
    public String getSessionPrefix() { return sessionPrefix; }
    public void setSessionPrefix(String sessionPrefix) { this.sessionPrefix = sessionPrefix; }

    /** How often rtpengine's `list` is compared with the gateway's calls (call/MediaReconciler); 0 = never. */
    private long reconcileMs = 10000;
    public long getReconcileMs() { return reconcileMs; }
    public void setReconcileMs(long reconcileMs) { this.reconcileMs = reconcileMs; }
}

package org.webrtcims.gw.config;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** Everything the gateway is told from the command line (`--lab.*`), with the lab's defaults. */
@ConfigurationProperties(prefix = "lab")
public class GatewayProperties {
    private final Sip sip = new Sip();
    private final Ims ims = new Ims();
    private final Rtpengine rtpengine = new Rtpengine();
    private final Webclient webclient = new Webclient();
    private final Api api = new Api();

    public Sip getSip() { return sip; }
    public Ims getIms() { return ims; }
    public Rtpengine getRtpengine() { return rtpengine; }
    public Webclient getWebclient() { return webclient; }
    public Api getApi() { return api; }

    public static class Sip {
        private String host = "127.0.0.1";
        private int port = 5070;
        /** Largest SIP message over TCP (bytes); JAIN-SIP closes a connection that sends more. */
        private int maxMessageBytes = 65536;
        /** TCP: how long a started message may take to arrive completely (ms). */
        private int readTimeoutMs = 5000;
        /** TCP connections the stack keeps open at most. */
        private int maxConnections = 64;
        /** Server transactions at most (beyond: the stack answers 503 on its own). */
        private int maxServerTransactions = 2000;
        /**
         * Sources SIP requests are accepted from: `host:port` (that port; over TCP/TLS also the connections of the
         * process listening there, sip/SipSources) or a bare `host` (every port of it); empty = lab.ims.proxy (the
         * P-CSCF's address and port). Others get 403 (an ACK is dropped). docs/security.md "SIP sources".
         */
        private java.util.List<String> trustedSources = new java.util.ArrayList<>();
        /**
         * JAIN-SIP's REENTRANT_LISTENER (sip/SipUserAgent): true = the stack calls the gateway's handlers on the
         * thread that parsed the message (UDP: its one processing thread, so in arrival order); false = through
         * the stack's event queue and its one EventScanner thread, a hand-off more per SIP message (issue #26).
         */
        private boolean reentrantListener = true;
        public boolean isReentrantListener() { return reentrantListener; }
        public void setReentrantListener(boolean v) { this.reentrantListener = v; }
        public int getMaxMessageBytes() { return maxMessageBytes; }
        public void setMaxMessageBytes(int v) { this.maxMessageBytes = v; }
        public int getReadTimeoutMs() { return readTimeoutMs; }
        public void setReadTimeoutMs(int v) { this.readTimeoutMs = v; }
        public int getMaxConnections() { return maxConnections; }
        public void setMaxConnections(int v) { this.maxConnections = v; }
        public int getMaxServerTransactions() { return maxServerTransactions; }
        public void setMaxServerTransactions(int v) { this.maxServerTransactions = v; }
        public java.util.List<String> getTrustedSources() { return trustedSources; }
        public void setTrustedSources(java.util.List<String> v) { this.trustedSources = v; }
        public String getHost() { return host; }
        public void setHost(String host) { this.host = host; }
        public int getPort() { return port; }
        public void setPort(int port) { this.port = port; }
        private final Tls tls = new Tls();
        public Tls getTls() { return tls; }
    }

    /**
     * SIP over TLS toward the P-CSCF (lab.ims.transport=tls; docs/security.md "SIP over TLS"): PEM files.
     * The gateway then listens on udp + tls at lab.sip.port (no plain TCP) and presents this certificate to
     * Kamailio when it connects for MT requests; it trusts only the certificates in `trust` (the P-CSCF's).
     */
    public static class Tls {
        private String certificate = "";
        private String privateKey = "";
        private String trust = "";
        public String getCertificate() { return certificate; }
        public void setCertificate(String v) { this.certificate = v; }
        public String getPrivateKey() { return privateKey; }
        public void setPrivateKey(String v) { this.privateKey = v; }
        public String getTrust() { return trust; }
        public void setTrust(String v) { this.trust = v; }
    }

    public static class Ims {
        /**
         * Outbound proxy (the P-CSCF role): HOST:PORT (no DNS for an address; a name with a port: its A record), or a
         * domain name found by DNS as RFC 3263 says (NAPTR → SRV → A, transport from NAPTR; sip/PcscfResolver).
         */
        private String proxy = "127.0.0.1:5060";
        /** The DNS server for lab.ims.proxy, ADDR or ADDR:PORT; empty = the system's resolvers (/etc/resolv.conf). */
        private String dns = "";
        public String getDns() { return dns; }
        public void setDns(String dns) { this.dns = dns; }
        private String domain = "ims.lab";
        /** udp, tcp or tls toward the proxy (tls needs lab.sip.tls.*). */
        private String transport = "udp";
        private int registerExpires = 600;
        private int registerTimeoutMs = 8000;
        private int inviteTimeoutMs = 30000;
        /** Offer RFC 3312 preconditions on MO calls and take part when an MT INVITE asks (TS 24.229 §6.1.2). */
        private boolean preconditions = true;
        /** How long the browser leg may take to get media up (the gateway's local QoS) before the call fails. */
        private int qosTimeoutMs = 10000;
        /**
         * Per-user IMS credentials (digest or IMS-AKA keys, and the web password the gateway then checks itself);
         * empty = none: the login password is the SIP digest password (docs/ims-sim.md).
         */
        private String credentials = "";
        /**
         * Subscribe to each user's registration state after REGISTER (RFC 3680 reg-event; a core that does not
         * serve it, like the light Kamailio, answers the SUBSCRIBE with an error): a network-initiated
         * de-registration then ends the user's session. Off by default; `--ims 3gpp` turns it on.
         */
        private boolean regEvent = false;
        /**
         * OPTIONS keepalive toward the P-CSCF every this many ms (0 = off): an answer after unanswered ones (the
         * P-CSCF restarted) re-REGISTERs every user (sip/RegistrarKeepalive, docs/security.md "Faults").
         */
        private int keepaliveMs = 0;
        /**
         * Where a browser may call besides the IMS's own domain (lab.ims.domain, no port) and tel: URIs: SIP hosts,
         * as `host` (any port) or `host:port`; empty = nowhere else (docs/security.md "Call targets"). A raw host
         * such as sip:ue1@127.0.0.1:5080 would bypass the IMS's routing, so it needs an entry here.
         */
        private java.util.List<String> callAllowlist = new java.util.ArrayList<>();
        public java.util.List<String> getCallAllowlist() { return callAllowlist; }
        public void setCallAllowlist(java.util.List<String> v) { this.callAllowlist = v; }
        public int getKeepaliveMs() { return keepaliveMs; }
        public void setKeepaliveMs(int keepaliveMs) { this.keepaliveMs = keepaliveMs; }
        public boolean isRegEvent() { return regEvent; }
        public void setRegEvent(boolean regEvent) { this.regEvent = regEvent; }
        public String getCredentials() { return credentials; }
        public void setCredentials(String credentials) { this.credentials = credentials; }
        public String getProxy() { return proxy; }
        public void setProxy(String proxy) { this.proxy = proxy; }
        public String getDomain() { return domain; }
        public void setDomain(String domain) { this.domain = domain; }
        public String getTransport() { return transport; }
        public void setTransport(String transport) { this.transport = transport; }
        public int getRegisterExpires() { return registerExpires; }
        public void setRegisterExpires(int registerExpires) { this.registerExpires = registerExpires; }
        public int getRegisterTimeoutMs() { return registerTimeoutMs; }
        public void setRegisterTimeoutMs(int registerTimeoutMs) { this.registerTimeoutMs = registerTimeoutMs; }
        public int getInviteTimeoutMs() { return inviteTimeoutMs; }
        public boolean isPreconditions() { return preconditions; }
        public void setPreconditions(boolean preconditions) { this.preconditions = preconditions; }
        /**
         * RFC 4028: the session interval (s) the gateway asks for on its INVITEs and puts in 2xx when the peer asked
         * for none; 0 = none of its own (it still honours the peer's). docs/call-flows.md "Session timers".
         */
        private int sessionExpires = 1800;
        /** RFC 4028: the smallest session interval (s) the gateway accepts (422 below it); the RFC's floor is 90. */
        private int minSe = 90;
        public int getSessionExpires() { return sessionExpires; }
        public void setSessionExpires(int v) { this.sessionExpires = v; }
        public int getMinSe() { return minSe; }
        public void setMinSe(int v) { this.minSe = v; }
        /** How long an IMS re-offer waits for the browser's `reanswer` before it is refused (488). */
        private int reofferTimeoutMs = 10000;
        public int getReofferTimeoutMs() { return reofferTimeoutMs; }
        public void setReofferTimeoutMs(int reofferTimeoutMs) { this.reofferTimeoutMs = reofferTimeoutMs; }
        public int getQosTimeoutMs() { return qosTimeoutMs; }
        public void setQosTimeoutMs(int qosTimeoutMs) { this.qosTimeoutMs = qosTimeoutMs; }
        public void setInviteTimeoutMs(int inviteTimeoutMs) { this.inviteTimeoutMs = inviteTimeoutMs; }
    }

    public static class Rtpengine {
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

    public static class Webclient {
        /** Folder served at "/"; empty = not served. */
        private String dir = "";
        public String getDir() { return dir; }
        public void setDir(String dir) { this.dir = dir; }
    }

    public static class Api {
        private int maxMessageBytes = 65536;
        /** A session token's lifetime from login; the session (calls, registration, socket) ends then. */
        private int tokenTtlSeconds = 43200;
        /** Origins allowed on /api and /ws besides the gateway's own (e.g. http://host:8088); requests without Origin pass. */
        private java.util.List<String> allowedOrigins = new java.util.ArrayList<>();
        /** Login attempts one source address may make per minute (all outcomes). */
        private int loginAttemptsPerAddress = 60;
        /** Failed logins one source address may have per minute. */
        private int loginFailuresPerAddress = 20;
        /** Failed logins of one user name per minute (whatever the source). */
        private int loginFailuresPerUser = 5;
        /** Live browser sessions in total; a login beyond it gets 503 too-many-sessions. */
        private int maxSessions = 100;
        /** WebSocket messages per second per socket (burst of the same size); beyond it: error rate-limited. */
        private int wsMessagesPerSecond = 20;
        /** A ping frame to every browser socket this often; 0 = none (and no idle check). */
        private long wsPingMs = 15000;
        /** A socket that sent nothing, not even a pong, for this long is closed as half-open; 0 = never. */
        private long wsIdleTimeoutMs = 45000;
        /**
         * How long a session (its calls, its registration) outlives a lost socket, for a new socket with the same
         * token to take it over; 0 = it ends at once (`websocket-closed`).
         */
        private long wsReconnectGraceMs = 0;
        /**
         * Open WebSockets from one source address (loopback not counted); one beyond it gets `error
         * too-many-connections` and close code 4429. 0 = no limit.
         */
        private int wsConnectionsPerAddress = 20;
        public int getWsConnectionsPerAddress() { return wsConnectionsPerAddress; }
        public void setWsConnectionsPerAddress(int v) { this.wsConnectionsPerAddress = v; }
        public long getWsPingMs() { return wsPingMs; }
        public void setWsPingMs(long v) { this.wsPingMs = v; }
        public long getWsIdleTimeoutMs() { return wsIdleTimeoutMs; }
        public void setWsIdleTimeoutMs(long v) { this.wsIdleTimeoutMs = v; }
        public long getWsReconnectGraceMs() { return wsReconnectGraceMs; }
        public void setWsReconnectGraceMs(long v) { this.wsReconnectGraceMs = v; }
        public int getMaxMessageBytes() { return maxMessageBytes; }
        public void setMaxMessageBytes(int maxMessageBytes) { this.maxMessageBytes = maxMessageBytes; }
        public int getTokenTtlSeconds() { return tokenTtlSeconds; }
        public void setTokenTtlSeconds(int tokenTtlSeconds) { this.tokenTtlSeconds = tokenTtlSeconds; }
        public java.util.List<String> getAllowedOrigins() { return allowedOrigins; }
        public void setAllowedOrigins(java.util.List<String> allowedOrigins) { this.allowedOrigins = allowedOrigins; }
        public int getLoginAttemptsPerAddress() { return loginAttemptsPerAddress; }
        public void setLoginAttemptsPerAddress(int v) { this.loginAttemptsPerAddress = v; }
        public int getLoginFailuresPerAddress() { return loginFailuresPerAddress; }
        public void setLoginFailuresPerAddress(int v) { this.loginFailuresPerAddress = v; }
        public int getLoginFailuresPerUser() { return loginFailuresPerUser; }
        public void setLoginFailuresPerUser(int v) { this.loginFailuresPerUser = v; }
        public int getMaxSessions() { return maxSessions; }
        /**
         * Put before every session token, e.g. `g1.`: with several gateways behind one HTTP load balancer it routes a
         * session's REST requests and WebSocket to the gateway that issued the token (docs/scale-out.md); empty = none.
         * Letters, digits, '.', '_' and '-' only (it travels in a WebSocket subprotocol and a URL path).
         */
        private String tokenPrefix = "";
        public String getTokenPrefix() { return tokenPrefix; }
        public void setTokenPrefix(String tokenPrefix) {
            if (tokenPrefix == null || !tokenPrefix.matches("[A-Za-z0-9._-]{0,16}")) {
                throw new IllegalArgumentException("lab.api.token-prefix: up to 16 of [A-Za-z0-9._-], got '" + tokenPrefix + "'");
            }
            this.tokenPrefix = tokenPrefix;
        }
        public void setMaxSessions(int maxSessions) { this.maxSessions = maxSessions; }
        public int getWsMessagesPerSecond() { return wsMessagesPerSecond; }
        public void setWsMessagesPerSecond(int v) { this.wsMessagesPerSecond = v; }
    }

    private final Limits limits = new Limits();
    public Limits getLimits() { return limits; }

    /** Call quotas, checked before rtpengine is asked for anything (`lab.limits.*`). */
    public static class Limits {
        /** A call answered this long ago is hung up (`ended {reason: "max-duration"}`, BYE toward IMS); 0 = no limit. */
        private long maxCallMs = 4L * 3600 * 1000;
        public long getMaxCallMs() { return maxCallMs; }
        public void setMaxCallMs(long maxCallMs) { this.maxCallMs = maxCallMs; }
        /** Live calls (MO + MT) of one browser session. */
        private int callsPerUser = 4;
        /** Live calls of the whole gateway (rtpengine's 30000-30999 range holds about 300). */
        private int callsTotal = 100;
        /** m-lines in one SDP from the browser or from IMS. */
        private int mlinesPerSdp = 4;
        /** a=candidate lines in one SDP. */
        private int candidatesPerSdp = 40;
        public int getCallsPerUser() { return callsPerUser; }
        public void setCallsPerUser(int v) { this.callsPerUser = v; }
        public int getCallsTotal() { return callsTotal; }
        public void setCallsTotal(int v) { this.callsTotal = v; }
        public int getMlinesPerSdp() { return mlinesPerSdp; }
        public void setMlinesPerSdp(int v) { this.mlinesPerSdp = v; }
        public int getCandidatesPerSdp() { return candidatesPerSdp; }
        public void setCandidatesPerSdp(int v) { this.candidatesPerSdp = v; }
    }

    private final Webrtc webrtc = new Webrtc();
    public Webrtc getWebrtc() { return webrtc; }

    /**
     * The ICE servers handed to each logged-in page (`lab.webrtc.*`, docs/security.md "TURN"). Default none: a TURN
     * relay costs a hop and the relay's bandwidth, and rtpengine is reachable directly unless a NAT or firewall says no.
     */
    public static class Webrtc {
        /** TURN (or STUN) URIs, e.g. `turn:198.18.1.1:3478?transport=udp`; empty = the page gets no ICE server. */
        private java.util.List<String> turnUris = new java.util.ArrayList<>();
        /** A file holding the TURN server's shared secret (coturn `static-auth-secret`); required with turn URIs. */
        private String turnSecretFile = "";
        public java.util.List<String> getTurnUris() { return turnUris; }
        public void setTurnUris(java.util.List<String> v) { this.turnUris = v; }
        public String getTurnSecretFile() { return turnSecretFile; }
        public void setTurnSecretFile(String v) { this.turnSecretFile = v; }
    }
}

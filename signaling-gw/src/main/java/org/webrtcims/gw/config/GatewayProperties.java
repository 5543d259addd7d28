package org.webrtcims.gw.config;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** Everything the gateway is told from the command line (`--lab.*`), with the lab's defaults. */
@ConfigurationProperties(prefix = "lab")
public class GatewayProperties {
    private final Sip sip = new Sip();
    private final ImsProperties ims = new ImsProperties();
    private final RtpengineProperties rtpengine = new RtpengineProperties();
    private final Webclient webclient = new Webclient();
    private final Api api = new Api();

    public Sip getSip() { return sip; }
    public ImsProperties getIms() { return ims; }
    public RtpengineProperties getRtpengine() { return rtpengine; }
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

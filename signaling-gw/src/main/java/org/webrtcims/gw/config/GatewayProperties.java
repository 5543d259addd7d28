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
        public String getHost() { return host; }
        public void setHost(String host) { this.host = host; }
        public int getPort() { return port; }
        public void setPort(int port) { this.port = port; }
    }

    public static class Ims {
        /** Outbound proxy (the P-CSCF role), host:port. */
        private String proxy = "127.0.0.1:5060";
        private String domain = "ims.lab";
        /** udp or tcp toward the proxy. */
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
        /** How long an IMS re-offer waits for the browser's `reanswer` before it is refused (488). */
        private int reofferTimeoutMs = 10000;
        public int getReofferTimeoutMs() { return reofferTimeoutMs; }
        public void setReofferTimeoutMs(int reofferTimeoutMs) { this.reofferTimeoutMs = reofferTimeoutMs; }
        public int getQosTimeoutMs() { return qosTimeoutMs; }
        public void setQosTimeoutMs(int qosTimeoutMs) { this.qosTimeoutMs = qosTimeoutMs; }
        public void setInviteTimeoutMs(int inviteTimeoutMs) { this.inviteTimeoutMs = inviteTimeoutMs; }
    }

    public static class Rtpengine {
        private String ng = "127.0.0.1:2223";
        private int timeoutMs = 1000;
        private int attempts = 3;
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
    }

    public static class Webclient {
        /** Folder served at "/"; empty = not served. */
        private String dir = "";
        public String getDir() { return dir; }
        public void setDir(String dir) { this.dir = dir; }
    }

    public static class Api {
        private int maxMessageBytes = 65536;
        public int getMaxMessageBytes() { return maxMessageBytes; }
        public void setMaxMessageBytes(int maxMessageBytes) { this.maxMessageBytes = maxMessageBytes; }
    }
}

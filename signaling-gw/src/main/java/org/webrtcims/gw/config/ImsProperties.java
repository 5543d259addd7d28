package org.webrtcims.gw.config;

/** The IMS side (`lab.ims.*`): the P-CSCF, the domain, registration and call timers, preconditions, session timers. */
public class ImsProperties {
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

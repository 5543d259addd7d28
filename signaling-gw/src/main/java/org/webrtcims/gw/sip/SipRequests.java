package org.webrtcims.gw.sip;

import org.springframework.stereotype.Component;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.config.HostPort;

import javax.sip.InvalidArgumentException;
import javax.sip.address.Address;
import javax.sip.address.SipURI;
import javax.sip.address.URI;
import javax.sip.header.*;
import javax.sip.message.Request;
import java.text.ParseException;
import java.util.List;

/** Builds the out-of-dialog requests the gateway sends on behalf of a browser user. */
@Component
public class SipRequests {
    public static final String USER_AGENT = "webrtc-ims-gw/0.1";

    private final SipUserAgent ua;
    private final GatewayProperties props;
    private final Pcscf pcscf;
    private volatile ContactHandover handover; // lab.failover.redis only (docs/scale-out.md)

    /** Unit tests: the P-CSCF of lab.ims.proxy, resolved here. */
    public SipRequests(SipUserAgent ua, GatewayProperties props) {
        this(ua, props, new Pcscf(props));
    }

    @org.springframework.beans.factory.annotation.Autowired
    public SipRequests(SipUserAgent ua, GatewayProperties props, Pcscf pcscf) {
        this.ua = ua;
        this.props = props;
        this.pcscf = pcscf;
    }

    @org.springframework.beans.factory.annotation.Autowired(required = false)
    public void setContactHandover(ContactHandover handover) { this.handover = handover; }

    /** The registration handover of a gateway failover, or null (the default lab). */
    ContactHandover handover() { return handover; }

    /** The data-channel media feature tag of the Contacts (none until set: unit tests, no endpoint). */
    private DataChannelCapability dataChannels = null;

    @org.springframework.beans.factory.annotation.Autowired(required = false)
    public void setDataChannelCapability(DataChannelCapability dataChannels) { this.dataChannels = dataChannels; }

    /** Where the P-CSCF is (the current target of lab.ims.proxy). */
    public Pcscf pcscf() { return pcscf; }

    public String domain() { return props.getIms().getDomain(); }

    /** sip:user@domain — the public identity of a user. */
    public Address aor(String user) throws ParseException {
        return ua.addresses().createAddress(ua.addresses().createSipURI(user, domain()));
    }

    /**
     * The URI the browser asked to call: a bare user name becomes sip:name@domain, a tel: URI becomes
     * sip:number@domain;user=phone (RFC 3261 §19.1.6), a user@host or sip: URI is taken as it is. Only the IMS's
     * domain (without a port) and tel: URIs are callable, other hosts only when lab.ims.call-allowlist names
     * them: a raw host or address would bypass the IMS's routing ({@link TargetRefused}).
     */
    /** A space, control character, angle bracket or double quote in {@code t}: no SIP URI a user name may become. */
    private static boolean hasDelimiter(String t) {
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c <= ' ' || c == '<' || c == '>' || c == '"') return true;
        }
        return false;
    }

    public SipURI targetUri(String to) throws ParseException, TargetRefused {
        String t = to == null ? "" : to.trim();
        if (t.isEmpty() || hasDelimiter(t)) {
            throw new ParseException("bad target '" + to + "'", 0);
        }
        boolean tel = t.regionMatches(true, 0, "tel:", 0, 4);
        if (tel) {
            String number = t.substring(4);
            if (number.isEmpty() || !number.matches("[+0-9*#A-Fa-f().\\-]+(;[!-~&&[^;@]]+)*")) {
                throw new ParseException("bad tel URI '" + to + "'", 0);
            }
            t = "sip:" + number + "@" + domain() + ";user=phone";
        } else if (!t.regionMatches(true, 0, "sip:", 0, 4)) {
            t = "sip:" + (t.contains("@") ? t : t + "@" + domain());
        }
        URI uri = ua.addresses().createURI(t);
        if (!(uri instanceof SipURI sip) || sip.getUser() == null) throw new ParseException("bad target '" + to + "'", 0);
        if (!tel && !callable(sip)) {
            throw new TargetRefused("cannot call '" + to + "': only users of " + domain()
                    + " and tel: numbers may be called (other hosts need lab.ims.call-allowlist)");
        }
        return sip;
    }

    /** The IMS's domain without a port, or a host / host:port of lab.ims.call-allowlist. */
    boolean callable(SipURI sip) {
        String host = sip.getHost() == null ? "" : sip.getHost().toLowerCase(java.util.Locale.ROOT);
        int port = sip.getPort();
        if (port < 0 && host.equalsIgnoreCase(domain())) return true;
        for (String entry : props.getIms().getCallAllowlist()) {
            String e = entry == null ? "" : entry.trim().toLowerCase(java.util.Locale.ROOT);
            if (e.isEmpty()) continue;
            if (!HostPort.hasPort(e)) e = HostPort.uriHost(e); // an IPv6 host: the URI's host is "[addr]"
            if (e.equals(host) || (port >= 0 && e.equals(host + ":" + port))) return true;
        }
        return false;
    }

    /** A call target the gateway will not call: a host outside the IMS's domain and the allowlist. */
    public static final class TargetRefused extends Exception {
        public TargetRefused(String message) { super(message); }
    }

    /**
     * The gateway's Contact for {@code user}: the user part of a registration (sip/ContactUsers, random per
     * registration). It is repeated as the URI's {@code rinstance} parameter: a P-CSCF keeps one registration per
     * source host:port unless the Contact URIs differ there (Kamailio's ims_usrloc_pcscf compares only rinstance),
     * and every browser user registers from the gateway's one address.
     */
    public ContactHeader contact(String user) throws ParseException {
        SipURI uri = ua.addresses().createSipURI(user, HostPort.uriHost(props.getSip().getHost())); // IPv6: [addr]
        uri.setPort(props.getSip().getPort());
        uri.setTransportParam(ua.transport());
        if (user != null) uri.setParameter("rinstance", user);
        ContactHeader c = ua.headers().createContactHeader(ua.addresses().createAddress(uri));
        if (dataChannels != null) dataChannels.tag(c); // TS 23.228 AC.4: +sip.app-subtype="webrtc-datachannel"
        return c;
    }

    /**
     * sip:address:port of the current P-CSCF target (lab.ims.proxy, resolved by Pcscf): the pre-loaded Route's URI,
     * the keepalive OPTIONS' target. IllegalStateException (its message says why) when no P-CSCF was found.
     */
    public SipURI proxyUri() throws ParseException {
        PcscfResolver.Target t = pcscf.current();
        SipURI u = ua.addresses().createSipURI(null, HostPort.uriHost(t.address()));
        u.setPort(t.port());
        return u;
    }

    /** lab.ims.proxy as given, for logs. */
    public String proxyAddress() { return pcscf.configured(); }

    /** A request with Via, Max-Forwards, a pre-loaded Route to the proxy (loose routing) and Contact. */
    public Request newRequest(String method, URI requestUri, Address from, String fromTag, Address to,
                          String callId, long cseq, String contactUser) throws ParseException, InvalidArgumentException {
        HeaderFactory h = ua.headers();
        ViaHeader via = h.createViaHeader(HostPort.uriHost(props.getSip().getHost()), props.getSip().getPort(), ua.transport(), null);
        Request r = ua.messages().createRequest(requestUri, method, h.createCallIdHeader(callId),
                h.createCSeqHeader(cseq, method), h.createFromHeader(from, fromTag), h.createToHeader(to, null),
                List.of(via), h.createMaxForwardsHeader(70));
        SipURI route = proxyUri();
        route.setLrParam();
        route.setTransportParam(ua.transport());
        r.addHeader(h.createRouteHeader(ua.addresses().createAddress(route)));
        r.addHeader(contact(contactUser));
        r.addHeader(h.createUserAgentHeader(List.of(USER_AGENT)));
        return r;
    }

    public void setSdpBody(javax.sip.message.Message m, String sdp) throws ParseException {
        m.setContent(sdp, ua.headers().createContentTypeHeader("application", "sdp"));
    }
}

package org.webrtcims.gw.sip;

import org.springframework.stereotype.Component;
import org.webrtcims.gw.config.GatewayProperties;

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

    /** Where the P-CSCF is (the current target of lab.ims.proxy). */
    public Pcscf pcscf() { return pcscf; }

    public String domain() { return props.getIms().getDomain(); }

    /** sip:user@domain — the public identity of a user. */
    public Address aor(String user) throws ParseException {
        return ua.addresses().createAddress(ua.addresses().createSipURI(user, domain()));
    }

    /**
     * The URI the browser asked to call: a bare user name becomes sip:name@domain, a user@host stays,
     * a sip: URI is taken as it is.
     */
    public SipURI target(String to) throws ParseException {
        String t = to.trim();
        if (t.isEmpty() || t.chars().anyMatch(c -> c <= ' ' || c == '<' || c == '>' || c == '"')) {
            throw new ParseException("bad target '" + to + "'", 0);
        }
        if (!t.startsWith("sip:")) t = "sip:" + (t.contains("@") ? t : t + "@" + domain());
        URI uri = ua.addresses().createURI(t);
        if (!(uri instanceof SipURI sip) || sip.getUser() == null) throw new ParseException("bad target '" + to + "'", 0);
        return sip;
    }

    public ContactHeader contact(String user) throws ParseException {
        SipURI uri = ua.addresses().createSipURI(user, props.getSip().getHost());
        uri.setPort(props.getSip().getPort());
        uri.setTransportParam(ua.transport());
        return ua.headers().createContactHeader(ua.addresses().createAddress(uri));
    }

    /**
     * sip:address:port of the current P-CSCF target (lab.ims.proxy, resolved by Pcscf): the pre-loaded Route's URI,
     * the keepalive OPTIONS' target. IllegalStateException (its message says why) when no P-CSCF was found.
     */
    public SipURI proxyUri() throws ParseException {
        PcscfResolver.Target t = pcscf.current();
        SipURI u = ua.addresses().createSipURI(null, t.address().contains(":") ? "[" + t.address() + "]" : t.address());
        u.setPort(t.port());
        return u;
    }

    /** lab.ims.proxy as given, for logs. */
    public String proxyAddress() { return pcscf.configured(); }

    /** A request with Via, Max-Forwards, a pre-loaded Route to the proxy (loose routing) and Contact. */
    public Request create(String method, URI requestUri, Address from, String fromTag, Address to,
                          String callId, long cseq, String contactUser) throws ParseException, InvalidArgumentException {
        HeaderFactory h = ua.headers();
        ViaHeader via = h.createViaHeader(props.getSip().getHost(), props.getSip().getPort(), ua.transport(), null);
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

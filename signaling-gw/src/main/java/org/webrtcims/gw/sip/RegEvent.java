package org.webrtcims.gw.sip;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.webrtcims.gw.config.GatewayProperties;

import javax.sip.ClientTransaction;
import javax.sip.Dialog;
import javax.sip.RequestEvent;
import javax.sip.ResponseEvent;
import javax.sip.ServerTransaction;
import javax.sip.address.Address;
import javax.sip.header.CallIdHeader;
import javax.sip.header.ExpiresHeader;
import javax.sip.header.SubscriptionStateHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The registration event package (RFC 3680, TS 24.229 §5.1.1.3): after a user's REGISTER succeeded the gateway
 * SUBSCRIBEs to that IMPU's registration state at the S-CSCF (Event: reg, Accept: application/reginfo+xml,
 * routed like any request of the user through the P-CSCF and the Service-Route), refreshes the subscription
 * in its dialog, answers every NOTIFY and reads its reginfo: when the registration of the IMPU, or the
 * gateway's own contact in it, is {@code terminated} while the gateway still holds the binding, the network
 * de-registered the user (e.g. {@code event="deactivated"}: administrative, {@code rejected}, {@code
 * unregistered}) and the listener hears (subscription, reason).
 */
final class RegEvent {
    private static final Logger log = LoggerFactory.getLogger(RegEvent.class);

    private final SipUserAgent ua;
    private final SipRequests requests;
    private final GatewayProperties props;
    private final ScheduledExecutorService timer;
    private volatile BiConsumer<Subscription, String> terminated = (s, reason) -> { };
    /** By the SUBSCRIBE's Call-ID (the NOTIFYs come in its dialog). */
    private final Map<String, Subscription> byCallId = new ConcurrentHashMap<>();

    /** One user's reg-event subscription. */
    static final class Subscription {
        private final String user;
        private final String contactUser;
        private final String impu;
        private final String callId;
        private final Consumer<String> flow;
        private final String fromTag = SipUserAgent.newTag();
        private volatile Dialog dialog;
        private volatile String state = "pending";
        /** Set once the binding is no longer ours (logout, replaced): its NOTIFYs are answered and ignored. */
        private volatile boolean forgotten;
        private volatile ScheduledFuture<?> refresh;
        private long cseq = 1;

        Subscription(String user, String contactUser, String impu, String callId, Consumer<String> flow) {
            this.user = user;
            this.contactUser = contactUser;
            this.impu = impu;
            this.callId = callId;
            this.flow = flow;
        }

        String user() { return user; }
        String impu() { return impu; }
        /** pending (SUBSCRIBE sent), active, terminated, or failed-CODE. */
        String state() { return state; }
    }

    RegEvent(SipUserAgent ua, SipRequests requests, GatewayProperties props, ScheduledExecutorService timer) {
        this.ua = ua;
        this.requests = requests;
        this.props = props;
        this.timer = timer;
    }

    /** Hears (subscription, reason) when a NOTIFY says the network ended the registration of a live subscription. */
    void onTerminated(BiConsumer<Subscription, String> listener) { this.terminated = listener; }

    /** contactUser: the user part of the registration's Contact ({@link ContactUsers}), also the SUBSCRIBE's. */
    Subscription subscribe(String user, String contactUser, String impu, Consumer<String> flow) {
        Subscription s = new Subscription(user, contactUser, impu, ua.newCallId(), flow);
        byCallId.put(s.callId, s);
        try {
            Address aor = ua.addresses().createAddress(impu);
            Request sub = requests.newRequest(Request.SUBSCRIBE, aor.getURI(), aor, s.fromTag, aor, s.callId, s.cseq++, contactUser);
            decorate(sub);
            ClientTransaction ct = ua.sendRequest(sub, new Handler(s));
            s.dialog = ct.getDialog();
            s.flow.accept("sent SUBSCRIBE (Event: reg)");
        } catch (Exception e) {
            s.state = "failed";
            byCallId.remove(s.callId);
            log.warn("reg-event SUBSCRIBE for {} not sent: {}", impu, e.toString());
        }
        return s;
    }

    private void decorate(Request r) throws Exception {
        r.addHeader(ua.headers().createEventHeader("reg"));
        r.addHeader(ua.headers().createAcceptHeader("application", "reginfo+xml"));
        r.addHeader(ua.headers().createExpiresHeader(props.getIms().getRegisterExpires()));
    }

    /** How long a retired subscription's NOTIFYs are still answered 200 (then 481, RFC 6665 §4.1.3). */
    static final long RETIRED_MS = 32_000;

    /**
     * The binding is no longer the gateway's: stop refreshing; NOTIFYs (the de-REGISTER's) are answered and
     * ignored for {@link #RETIRED_MS}, then the subscription is dropped.
     */
    void forget(Subscription s) {
        if (s == null) return;
        s.forgotten = true;
        ScheduledFuture<?> f = s.refresh;
        if (f != null) f.cancel(false);
        timer.schedule(() -> byCallId.remove(s.callId, s), RETIRED_MS, TimeUnit.MILLISECONDS);
    }

    /** Live subscriptions, retired ones included until they are dropped (tests, diagnostics). */
    int size() { return byCallId.size(); }

    private final class Handler implements ResponseHandler {
        private final Subscription s;

        Handler(Subscription s) { this.s = s; }

        @Override
        public void onResponse(ResponseEvent event) {
            Response r = event.getResponse();
            int code = r.getStatusCode();
            if (code < 200) return;
            s.flow.accept("recv " + code + " (SUBSCRIBE)");
            if (code >= 300) {
                s.state = "failed-" + code;
                log.warn("reg-event SUBSCRIBE for {} answered {} {}", s.impu, code, r.getReasonPhrase());
                return;
            }
            if (event.getDialog() != null) s.dialog = event.getDialog();
            if (!"terminated".equals(s.state)) s.state = "active";
            ExpiresHeader e = (ExpiresHeader) r.getHeader(ExpiresHeader.NAME);
            int granted = e != null && e.getExpires() > 0 ? e.getExpires() : props.getIms().getRegisterExpires();
            if (!s.forgotten) {
                s.refresh = timer.schedule(() -> refresh(s), Math.max(1000L, granted * 800L), TimeUnit.MILLISECONDS);
            }
        }

        @Override
        public void onTimeout() {
            s.state = "failed-408";
            log.warn("reg-event SUBSCRIBE for {}: no answer", s.impu);
        }
    }

    /** Re-SUBSCRIBE in the subscription's dialog (RFC 6665 §4.1.2.1). */
    private void refresh(Subscription s) {
        Dialog d = s.dialog;
        if (s.forgotten || d == null || "terminated".equals(s.state)) return;
        try {
            Request r = d.createRequest(Request.SUBSCRIBE);
            decorate(r);
            ua.sendInDialog(d, r, new Handler(s));
            s.flow.accept("sent SUBSCRIBE (refresh)");
        } catch (Exception e) {
            log.warn("reg-event refresh for {} failed: {}", s.impu, e.toString());
        }
    }

    /** A NOTIFY from the network (SipUserAgent routes every NOTIFY here). */
    void onNotify(RequestEvent event) {
        Request req = event.getRequest();
        String callId = ((CallIdHeader) req.getHeader(CallIdHeader.NAME)).getCallId();
        Subscription s = byCallId.get(callId);
        try {
            ServerTransaction st = ua.serverTransaction(event);
            if (s == null) {
                st.sendResponse(ua.response(Response.CALL_OR_TRANSACTION_DOES_NOT_EXIST, req));
                return;
            }
            st.sendResponse(ua.response(Response.OK, req));
        } catch (Exception e) {
            log.warn("cannot answer NOTIFY {}: {}", callId, e.toString());
            if (s == null) return;
        }
        SubscriptionStateHeader ss = (SubscriptionStateHeader) req.getHeader(SubscriptionStateHeader.NAME);
        boolean subscriptionEnds = ss != null && SubscriptionStateHeader.TERMINATED.equalsIgnoreCase(ss.getState());
        String reason = regTerminated(req.getRawContent(), s.impu, ourContact(s.contactUser));
        s.flow.accept("recv NOTIFY (" + (ss == null ? "?" : ss.getState()) + (reason != null ? ", registration terminated: " + reason : "") + ")");
        if (subscriptionEnds) {
            s.state = "terminated";
            byCallId.remove(callId);
            ScheduledFuture<?> f = s.refresh;
            if (f != null) f.cancel(false);
        }
        if (reason != null && !s.forgotten) {
            forget(s);
            terminated.accept(s, reason);
        }
    }

    private String ourContact(String contactUser) {
        return contactUser + "@" + new org.webrtcims.gw.config.HostPort(props.getSip().getHost(), props.getSip().getPort());
    }

    /**
     * The reason the network ended the registration of `impu` (RFC 3680 §5.1: the registration's state is
     * terminated, or our contact in it is, with its event attribute: deactivated, rejected, unregistered,
     * expired, probation), or null when it still stands or the body says nothing about it.
     */
    static String regTerminated(byte[] body, String impu, String ourContact) {
        if (body == null || body.length == 0) return null;
        Document doc;
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setExpandEntityReferences(false);
            doc = f.newDocumentBuilder().parse(new ByteArrayInputStream(body));
        } catch (Exception e) {
            log.warn("unreadable reginfo: {}", e.getMessage());
            return null;
        }
        NodeList regs = doc.getElementsByTagNameNS("*", "registration");
        for (int i = 0; i < regs.getLength(); i++) {
            Element reg = (Element) regs.item(i);
            if (!impu.equalsIgnoreCase(reg.getAttribute("aor"))) continue;
            String contactReason = null;
            boolean oursActive = false;
            NodeList contacts = reg.getElementsByTagNameNS("*", "contact");
            for (int c = 0; c < contacts.getLength(); c++) {
                Element ct = (Element) contacts.item(c);
                NodeList uris = ct.getElementsByTagNameNS("*", "uri");
                String uri = uris.getLength() == 0 ? "" : uris.item(0).getTextContent().trim();
                if (!uri.contains(ourContact)) continue;
                if ("terminated".equalsIgnoreCase(ct.getAttribute("state"))) {
                    contactReason = ct.getAttribute("event").isEmpty() ? "terminated" : ct.getAttribute("event");
                } else {
                    oursActive = true;
                }
            }
            if (oursActive) return null;
            if (contactReason != null) return contactReason;
            if ("terminated".equalsIgnoreCase(reg.getAttribute("state"))) return "terminated";
        }
        return null;
    }
}

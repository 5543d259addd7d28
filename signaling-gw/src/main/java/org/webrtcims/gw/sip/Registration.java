package org.webrtcims.gw.sip;

import javax.sip.address.Address;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;

/**
 * One user's registration: a Call-ID, From tag and CSeq kept across its REGISTERs (RFC 3261 §10.2.4), how it
 * authenticates ({@link RegisterAuth}), the user part of its Contact ({@link ContactUsers}: random, kept across
 * refreshes), what the registrar's last 200 granted ({@link RegisterOk}), its pending refresh, its reg-event
 * subscription and the SIP flow of its REGISTERs.
 */
final class Registration {
    private static final int MAX_FLOW = 64;

    final String user;
    final RegisterAuth auth;
    final String callId;
    final String contactUser;
    final String fromTag = SipUserAgent.newTag();
    private long cseq = 1;
    private ScheduledFuture<?> refresh;
    private volatile RegisterOk granted;
    private volatile int refreshes;
    private volatile long registeredAtMillis;
    private volatile RegEvent.Subscription subscription;
    /** What this registration's REGISTERs sent and received, in order (e.g. "recv 401 (AKAv1-MD5)"). */
    private final List<String> flow = new CopyOnWriteArrayList<>();

    Registration(String user, RegisterAuth auth, String callId, String contactUser) {
        this.user = user;
        this.auth = auth;
        this.callId = callId;
        this.contactUser = contactUser;
    }

    synchronized long nextCseq() { return cseq++; }

    /** An answer to CSeq {@code answered}: the next REGISTER counts on from there (a helper's resend raised it). */
    synchronized void answered(long answered) { cseq = Math.max(cseq, answered + 1); }

    /** Its 2xx to a REGISTER with an expiry: a refresh when it had been registered before. */
    void registered(RegisterOk ok) {
        if (registeredAtMillis != 0) refreshes++;
        registeredAtMillis = System.currentTimeMillis();
        granted = ok;
    }

    boolean everRegistered() { return registeredAtMillis != 0; }

    /** The next refresh, replacing (and cancelling) the one pending. */
    synchronized void refreshAt(ScheduledFuture<?> next) {
        if (refresh != null && refresh != next) refresh.cancel(false);
        refresh = next;
    }

    synchronized void cancelRefresh() {
        if (refresh != null) refresh.cancel(false);
    }

    void flow(String item) { if (flow.size() < MAX_FLOW) flow.add(item); }

    List<String> flow() { return List.copyOf(flow); }

    void subscription(RegEvent.Subscription s) { subscription = s; }

    /** The reg-event subscription (RFC 3680), null while none was sent. */
    RegEvent.Subscription subscription() { return subscription; }

    /** What the last 2xx granted; null before the first. */
    RegisterOk granted() { return granted; }

    int grantedExpires() { return granted == null ? 0 : granted.expires(); }

    int refreshes() { return refreshes; }

    long registeredAtMillis() { return registeredAtMillis; }

    /** RFC 3608: the route the registrar told the UE to preload on its initial requests. */
    List<Address> serviceRoute() { return granted == null ? List.of() : granted.serviceRoute(); }

    /** The public user identities of the last 200 (TS 24.229 §5.1.1.2.1); null before it. */
    RegisteredIdentities identities() { return granted == null ? null : granted.identities(); }

    /** The IMPU the REGISTER names, else null (sip:LOGIN@domain is registered). */
    String impu() { return auth.impu(); }
}

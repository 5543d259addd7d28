package org.webrtcims.gw.call;

import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.sip.SipReplies;
import org.webrtcims.gw.sip.SipRequests;
import org.webrtcims.gw.sip.SipUserAgent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.sdp.QosPreconditions;
import org.webrtcims.gw.sip.SipHeaders;

import javax.sip.ResponseEvent;
import javax.sip.ServerTransaction;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * RFC 3312 / RFC 4032 preconditions (TS 24.229), both directions: whether a call uses them ({@link QosState} on
 * the call), the status lines the gateway writes (sdp/QosPreconditions), the local segment (met once
 * {@link LocalMediaWatch} sees the browser leg carry media), the UPDATE exchanges, and MT alerting once both
 * segments are met. The caller holds the call's lock unless a method says otherwise.
 */
@Component
public class Preconditions implements DialogExtension {
    private static final Logger log = LoggerFactory.getLogger(Preconditions.class);
    static final int PRECONDITION_FAILURE = 580;

    private final SipUserAgent ua;
    private final SipRequests requests;
    /** The SIP stack's response builder, which the call's dialog answers an UPDATE with. */
    private final SipReplies replies;
    private final CallTeardown teardown;
    private final CallEventSink sink;
    private final LocalMediaWatch watch;
    private final InviteServer inviteServer;
    private final ReliableProvisionals reliable;
    private final boolean enabled;

    public Preconditions(SipUserAgent ua, SipRequests requests, SipReplies replies, CallTeardown teardown,
                         CallEventSink sink, GatewayProperties props, LocalMediaWatch watch,
                         InviteServer inviteServer, ReliableProvisionals reliable) {
        this.ua = ua;
        this.requests = requests;
        this.replies = replies;
        this.teardown = teardown;
        this.sink = sink;
        this.watch = watch;
        this.inviteServer = inviteServer;
        this.reliable = reliable;
        this.enabled = props.getIms().isPreconditions();
    }

    // ---- MO: the gateway offers preconditions (lab.ims.preconditions) ----

    /**
     * The INVITE's SDP, when offering them: TS 24.229 originating UE: local segment mandatory, remote optional, nothing
     * reserved yet (sdp/BrowserSdp writes the lines with the rest of the offer).
     */
    @Override
    public QosPreconditions.Status offering(Call c) {
        return enabled ? new QosPreconditions.Status("none", "none", "optional", false) : null;
    }

    /** Supported: precondition on the INVITE when offering them. */
    @Override
    public void initialInvite(Call c, Request invite) throws java.text.ParseException {
        if (enabled) invite.addHeader(ua.headers().createSupportedHeader("precondition"));
    }

    /** An early answer (reliable 1xx) arrived: with preconditions, report our segment with an UPDATE once the browser leg is up. */
    void moAnswered(Call c, String answer) {
        if (!enabled || !QosPreconditions.present(answer)) return;
        c.qos().use(true, QosPreconditions.peerLocalStatus(answer));
        watch.start(c, () -> reportLocalQos(c), () -> teardown.hangUp(c, "preconditions-failed"));
    }

    /** Sends UPDATE with the local segment met (RFC 3312 §5.1.1, TS 24.229 §6.1.2). Takes the call's lock. */
    private void reportLocalQos(Call c) {
        synchronized (c) {
            if (c.state() != CallState.EARLY) return; // answered already, or ended
            c.qos().localSegmentMet();
            try {
                String sdp = c.media().imsSdpWithQos(new QosPreconditions.Status("sendrecv", c.qos().remote(), "optional", false));
                Request update = c.dialog().request(Request.UPDATE);
                requests.setSdpBody(update, sdp);
                update.setHeader(requests.contact(c.dialog().contactUser())); // one Contact (the stack put in a bare one)
                c.flow(Request.UPDATE);
                c.dialog().send(update, new CallResponses(c, sink) {
                    @Override void response(ResponseEvent event, Response r, int code) {
                        String answer = SipHeaders.sdp(r);
                        if (answer != null) c.qos().peerStatus(QosPreconditions.peerLocalStatus(answer));
                    }
                });
            } catch (Exception e) {
                log.warn("UPDATE for {} not sent: {}", c.id, e.toString());
            }
        }
    }

    // ---- MT: an IMS INVITE asks for preconditions ----

    /**
     * The INVITE's offer: preconditions are used when enabled, offered with status lines, and 100rel + precondition
     * are supported (an offerless INVITE uses none).
     */
    @Override
    public void invited(Call c, Request invite, String offer) {
        if (offer == null) return;
        c.qos().use(enabled && QosPreconditions.present(offer)
                && SipHeaders.supportsOrRequires(invite, "precondition") && SipHeaders.supportsOrRequires(invite, "100rel"),
                QosPreconditions.peerLocalStatus(offer));
    }

    /** MT: the browser's early answer (as rtpengine made it for IMS): reliable 183 with our status, then watch our segment. */
    @Override
    public void earlyAnswer(Call c, String imsAnswer) {
        if (!c.qos().on()) return;
        c.media().sentToIms(QosPreconditions.withStatus(imsAnswer, new QosPreconditions.Status("none", c.qos().remote(), "mandatory", true)));
        reliable.sessionProgress(c);
        watch.start(c, () -> localMet(c), () -> timedOut(c));
    }

    /** MT: the browser accepted: the 200 goes now when alerting already happened, else when both segments are met. */
    @Override
    public boolean accepted(Call c) {
        if (!c.qos().on()) return false;
        c.accept();
        if (c.qos().alerted()) inviteServer.ok(c, null);
        return true;
    }

    private void localMet(Call c) {
        synchronized (c) {
            if (c.ended()) return;
            c.qos().localSegmentMet();
            if (c.qos().pendingUpdate() != null) answerUpdate(c, c.qos().pendingUpdate());
            alertWhenMet(c);
        }
    }

    private void timedOut(Call c) {
        synchronized (c) {
            if (c.ended() || c.qos().alerted()) return;
            if (c.qos().pendingUpdate() != null) answerUpdate(c, c.qos().pendingUpdate());
            teardown.rejectInvite(c, PRECONDITION_FAILURE);
            teardown.finish(c, "preconditions-failed", PRECONDITION_FAILURE);
        }
    }

    /** Both segments met: ring (180) and alert the browser; answer at once if it already accepted. */
    private void alertWhenMet(Call c) {
        if (c.qos().alerted() || c.state() != CallState.INCOMING || !c.qos().bothMet()) return;
        c.qos().markAlerted();
        inviteServer.ring(c);
        sink.toBrowser(c.owner, CallMessages.of("alerting", c.id));
        if (c.accepted()) inviteServer.ok(c, null);
    }

    // ---- UPDATE from the IMS side before the call is answered ----

    /**
     * An UPDATE with SDP in a call that uses preconditions, before the call is confirmed and once the gateway gave IMS
     * its SDP (RFC 3312 §5; the dialog asks this extension first, so such an UPDATE is handled here alone; in a
     * confirmed call an UPDATE offer is {@link MidCallOffers}', other UPDATEs {@link Updates}'): the peer's QoS
     * status, answered with ours once we know it (MT: held until then, bounded by the QoS timeout).
     */
    @Override
    public boolean request(ServerTransaction st, Call c, String offer) {
        if (!Request.UPDATE.equals(st.getRequest().getMethod()) || c.state() == CallState.CONFIRMED) return false;
        if (!c.qos().on() || offer == null || c.media().imsSdp() == null) return false;
        update(st, c, offer);
        return true;
    }

    private void update(ServerTransaction st, Call c, String offer) {
        c.qos().peerStatus(QosPreconditions.peerLocalStatus(offer));
        // MT: hold the answer until our segment is known (bounded by the QoS timeout), so it reports it.
        if (c.direction == Direction.MT && !c.qos().localMet() && !c.ended()) c.qos().holdUpdate(st);
        else answerUpdate(c, st);
    }

    private void answerUpdate(Call c, ServerTransaction st) {
        c.qos().updateAnswered(st);
        String strength = c.direction == Direction.MT ? "mandatory" : "optional";
        String sdp = c.media().imsSdpWithQos(
                new QosPreconditions.Status(c.qos().localMet() ? "sendrecv" : "none", c.qos().remote(), strength, false));
        c.dialog().reply(replies, st, Response.OK, sdp); // within the dialog: an early UPDATE's 2xx has no session timer
        if (c.direction == Direction.MT) alertWhenMet(c);
    }
}

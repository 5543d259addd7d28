package org.webrtcims.gw.call;

import org.slf4j.LoggerFactory;
import org.webrtcims.gw.media.MediaStats;

import javax.sip.ClientTransaction;
import javax.sip.Dialog;
import javax.sip.ServerTransaction;
import java.util.ArrayList;
import java.util.List;

/** One call between a browser user and the IMS side; guarded by its own monitor. */
public final class Call {
    final String id;
    final Direction direction;
    final String owner;      // browser session token
    final String localUser;  // the browser user
    /**
     * The user part of the Contact of this call's dialog: the registration's random one (sip/ContactUsers), never
     * the login name. MT: the INVITE's Request-URI user; MO: the caller's registration's.
     */
    String contactUser;
    /** MO: the registered public user identity the call goes out as (From, P-Preferred-Identity); null for MT. */
    String callerIdentity;
    final String remote;     // the IMS party, user@host
    final String fromTag;
    final long startedNanos = System.nanoTime();
    final List<String> sipFlow = new ArrayList<>();
    String toTag;
    CallState state;
    Integer sipFinal;
    Long setupMs;
    Dialog dialog;
    ClientTransaction inviteTx;
    ServerTransaction inviteServerTx;
    boolean byeAfterAck;
    /** CSeq of the last ACK received: a repeated one (2xx retransmitted) is not recorded twice. */
    long lastAckCseq = -1;
    /** RFC 3312 preconditions (Preconditions owns it). */
    final QosState qos = new QosState();
    /** The SDP state (CallMedia and Preconditions keep it). */
    final CallSdp sdp = new CallSdp();
    /** MT: the INVITE had no SDP: the browser's SDP is the offer (in our 200), the IMS answer comes in the ACK. */
    boolean offerless;
    /** MT: the browser accepted the call. */
    boolean accepted;
    /** A mid-call offer is under way (from either side): a second one is refused (glare, RFC 3261 §14). */
    boolean reofferPending;
    /** An IMS re-offer (re-INVITE or UPDATE) waiting for the browser's `reanswer`. */
    ServerTransaction pendingImsOffer;
    MediaStats finalStats;
    /** System.nanoTime() when rtpengine first answered this call's offer (0 = not yet): MediaReconciler. */
    volatile long rtpengineSinceNanos;
    /** The teardown's rtpengine delete, done off the SIP thread (CallMedia.release); null before teardown. */
    java.util.concurrent.CompletableFuture<Void> released;
    /** RFC 4028 (SessionTimers): the negotiated interval (null = no session timer) and its state. */
    SessionTimer.Interval timer;
    /** MO: the Session-Expires the INVITE asks for (0 = not yet set; after a 422, the interval it asked). */
    int timerAskedSe;
    boolean timer422Retried;
    /** The IMS party said Supported/Require: timer; it allows UPDATE (the gateway then refreshes by UPDATE). */
    boolean timerPeerSupports;
    boolean timerPeerAllowsUpdate;
    /** Bumped on every (re)start: a refresh or expiry task of an older interval does nothing. */
    long timerGeneration;
    /** The session timer's pending expiry and refresh tasks (SessionTimers), cancelled on re-arm and at the end. */
    volatile java.util.concurrent.ScheduledFuture<?> timerExpiry, timerRefresh;
    String endReason;
    /** In-dialog requests of the gateway that failed: "BYE 478 Unresolvable destination" (call/CallResponses). */
    final java.util.List<String> failedRequests = new java.util.ArrayList<>();
    long endedAtMillis;
    /** The maximum-call-length timer of an answered call (MaxCallLength), cancelled when the call ends. */
    volatile java.util.concurrent.ScheduledFuture<?> maxLength;

    Call(String id, Direction direction, String owner, String localUser, String remote, String fromTag, CallState state) {
        this.id = id;
        this.direction = direction;
        this.owner = owner;
        this.localUser = localUser;
        this.remote = remote;
        this.fromTag = fromTag;
        this.state = state;
    }

    public String id() { return id; }
    public String owner() { return owner; }
    public Direction direction() { return direction; }

    /** The rtpengine tag of the browser's side: it made the offer in MO and the answer in MT. */
    String browserTag() { return direction == Direction.MO ? fromTag : toTag; }

    /** The rtpengine tag of the IMS party. */
    String imsTag() { return direction == Direction.MO ? toTag : fromTag; }

    synchronized boolean ended() { return state == CallState.ENDED; }

    synchronized void flow(String item) { sipFlow.add(item); }

    void markSetupDone() {
        if (setupMs == null) setupMs = (System.nanoTime() - startedNanos) / 1_000_000;
    }

    /** ACKs a 2xx to one of our INVITEs ({@code what}: which, for the log) in the call's dialog and records it. */
    void ack(javax.sip.message.Response ok, String what) {
        try {
            long cseq = ((javax.sip.header.CSeqHeader) ok.getHeader(javax.sip.header.CSeqHeader.NAME)).getSeqNumber();
            dialog.sendAck(dialog.createAck(cseq));
            flow(javax.sip.message.Request.ACK);
        } catch (Exception e) {
            LoggerFactory.getLogger(Call.class).warn("ACK of {} for {} not sent: {}", what, id, e.toString());
        }
    }

    String from() { return direction == Direction.MO ? localUser : remote; }
    String to() { return direction == Direction.MO ? remote : localUser; }
}

package org.webrtcims.gw.call;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.webrtcims.gw.media.RtpEngineClient;

import javax.sip.ServerTransaction;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ScheduledFuture;

/**
 * One call between a browser user and the IMS side, as a state machine: its {@link CallState} changes only through
 * {@link #transition}, which checks the move against {@link CallState#next} and records it. Each concern keeps its own
 * state in its owner: the SIP dialog ({@link Dialog}), the media leg toward rtpengine ({@link MediaLeg}, SDP per leg,
 * codecs, DTMF injection), RFC 3312 preconditions ({@link QosState}), the RFC 4028 session timer ({@link SessionTimer}).
 * No field of a call is written outside its owner's class. Guarded by the call's own monitor.
 */
public final class Call {
    private static final Logger log = LoggerFactory.getLogger(Call.class);

    /** One state change: when (epoch ms), from, to. */
    record Transition(long atMillis, CallState from, CallState to) { }

    /** Told of each transition as it is recorded (CallRegistry counts them: gw_call_transitions_total). */
    @FunctionalInterface
    interface TransitionListener { void moved(CallState from, CallState to); }

    final String id;
    final Direction direction;
    final String owner;      // browser session token
    final String localUser;  // the browser user
    final String remote;     // the IMS party, user@host
    final String fromTag;
    final long startedNanos = System.nanoTime();
    private final List<String> sipFlow = new ArrayList<>();
    /** In-dialog requests of the gateway that failed: "BYE 478 Unresolvable destination" (call/CallResponses). */
    private final List<String> failedRequests = new ArrayList<>();
    private final List<Transition> transitions = new ArrayList<>();
    private final Dialog dialog;
    private final MediaLeg media;
    private final QosState qos = new QosState();
    private final SessionTimer timer = new SessionTimer();

    private CallState state;
    private Integer sipFinal;
    private Long setupMs;
    private String endReason;
    private long endedAtMillis;
    /** MT: the INVITE had no SDP: the browser's SDP is the offer (in our 200), the IMS answer comes in the ACK. */
    private boolean offerless;
    /** MT: the browser accepted the call. */
    private boolean accepted;
    /** A mid-call offer is under way (from either side): a second one is refused (glare, RFC 3261 §14). */
    private boolean reofferPending;
    /** An IMS re-offer (re-INVITE or UPDATE) waiting for the browser's `reanswer`. */
    private ServerTransaction pendingImsOffer;
    /** The maximum-call-length timer of an answered call (MaxCallLength), cancelled when the call ends. */
    private volatile ScheduledFuture<?> maxLength;
    private TransitionListener transitionListener = (from, to) -> { };

    /** A call without a relay or a SIP stack (it sends nothing): tests of what needs neither. */
    Call(String id, Direction direction, String owner, String localUser, String remote, String fromTag, CallState state) {
        this(id, direction, owner, localUser, remote, fromTag, state, null, null);
    }

    /** A call without a SIP stack to send in-dialog requests with: tests of its media leg. */
    Call(String id, Direction direction, String owner, String localUser, String remote, String fromTag, CallState state,
         RtpEngineClient relay) {
        this(id, direction, owner, localUser, remote, fromTag, state, relay == null ? null : new CallMedia(relay), null);
    }

    /** media: the relay set and data-channel endpoint of the call's media leg; sender: how its dialog sends in-dialog requests. */
    Call(String id, Direction direction, String owner, String localUser, String remote, String fromTag, CallState state,
         CallMedia media, InDialogSender sender) {
        this.id = id;
        this.direction = direction;
        this.owner = owner;
        this.localUser = localUser;
        this.remote = remote;
        this.fromTag = fromTag;
        this.state = state;
        this.dialog = new Dialog(id, sender, this::flow);
        this.media = media == null ? new MediaLeg(id, direction, fromTag, dialog, this, null, null)
                : media.newLeg(id, direction, fromTag, dialog, this);
    }

    public String id() { return id; }
    public String owner() { return owner; }
    public Direction direction() { return direction; }

    Dialog dialog() { return dialog; }
    MediaLeg media() { return media; }
    QosState qos() { return qos; }
    SessionTimer timer() { return timer; }

    synchronized CallState state() { return state; }

    /**
     * Moves the call to {@code to}: allowed moves only ({@link CallState#next}; staying put is no move), each recorded
     * (time, from, to) and logged. False, logged, for a move the table does not allow; the state is then unchanged.
     */
    synchronized boolean transition(CallState to) {
        if (state == to) return false;
        if (!state.canGo(to)) {
            log.warn("call {}: no transition {} -> {}; stays {}", id, state, to, state);
            return false;
        }
        transitions.add(new Transition(System.currentTimeMillis(), state, to));
        log.debug("call {}: {} -> {}", id, state, to);
        transitionListener.moved(state, to);
        state = to;
        return true;
    }

    /** From now on each transition is also told to {@code listener} (CallRegistry.add: the metrics). */
    synchronized void reportTransitionsTo(TransitionListener listener) { transitionListener = listener; }

    /** The transitions so far, oldest first. */
    synchronized List<Transition> transitions() { return Collections.unmodifiableList(new ArrayList<>(transitions)); }

    /** Whether the call is still setting up from the gateway's side (MO, no final response yet). */
    synchronized boolean outgoingEarly() { return state == CallState.CALLING || state == CallState.EARLY; }

    synchronized boolean ended() { return state == CallState.ENDED; }

    /**
     * The end of the call: ENDED with its reason and time. False when it had ended already. The caller (CallTeardown)
     * releases what the call holds.
     */
    synchronized boolean end(String reason) {
        if (!transition(CallState.ENDED)) return false;
        endReason = reason;
        endedAtMillis = System.currentTimeMillis();
        return true;
    }

    synchronized String endReason() { return endReason; }

    synchronized long endedAtMillis() { return endedAtMillis; }

    synchronized void flow(String item) { sipFlow.add(item); }

    synchronized List<String> sipFlow() { return new ArrayList<>(sipFlow); }

    /** An in-dialog request of the gateway failed (CallResponses). */
    synchronized void requestFailed(String what) { failedRequests.add(what); }

    synchronized List<String> failedRequests() { return new ArrayList<>(failedRequests); }

    synchronized Integer sipFinal() { return sipFinal; }

    /** The final status of the call's INVITE (sent or received). */
    synchronized void finalStatus(int code) { sipFinal = code; }

    /** The final status, unless one is known already. */
    synchronized void finalStatusIfNone(int code) { if (sipFinal == null) sipFinal = code; }

    synchronized Long setupMs() { return setupMs; }

    void markSetupDone() {
        synchronized (this) {
            if (setupMs == null) setupMs = (System.nanoTime() - startedNanos) / 1_000_000;
        }
    }

    synchronized boolean offerless() { return offerless; }

    /** MT: the INVITE had no SDP (delayed offer). */
    synchronized void markOfferless() { offerless = true; }

    synchronized boolean accepted() { return accepted; }

    /** MT: the browser accepted the call. */
    synchronized void accept() { accepted = true; }

    synchronized boolean reofferPending() { return reofferPending; }

    /** A mid-call offer (either side's, or the session refresh's re-INVITE) starts; a second one meets 491. */
    synchronized void reofferStarted() { reofferPending = true; }

    /** The mid-call offer under way is over (answered, refused or given up). */
    synchronized void reofferDone() { reofferPending = false; }

    /** An IMS re-offer waits for the browser's `reanswer`. */
    synchronized void imsOfferWaiting(ServerTransaction st) {
        reofferPending = true;
        pendingImsOffer = st;
    }

    synchronized ServerTransaction pendingImsOffer() { return pendingImsOffer; }

    /** The waiting IMS re-offer, now answered (or refused): it leaves the call, and the re-offer is over. */
    synchronized ServerTransaction takeImsOffer() {
        ServerTransaction st = pendingImsOffer;
        pendingImsOffer = null;
        reofferPending = false;
        return st;
    }

    /** The maximum-call-length timer of the answered call. */
    void armMaxLength(ScheduledFuture<?> f) { maxLength = f; }

    /** Whether the maximum-length timer is armed (answered, not ended). */
    boolean hasMaxLength() { return maxLength != null; }

    /** The call ended: its maximum-length timer goes (with it the task's hold on the call). */
    void stopMaxLength() {
        ScheduledFuture<?> f = maxLength;
        maxLength = null;
        if (f != null) f.cancel(false);
    }

    /** ACKs a 2xx to one of our INVITEs ({@code what}: which, for the log) in the call's dialog and records it. */
    void ack(javax.sip.message.Response ok, String what) {
        if (dialog.ack(ok, what)) flow(javax.sip.message.Request.ACK);
    }

    String from() { return direction == Direction.MO ? localUser : remote; }
    String to() { return direction == Direction.MO ? remote : localUser; }
}

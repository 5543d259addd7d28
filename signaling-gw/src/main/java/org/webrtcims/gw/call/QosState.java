package org.webrtcims.gw.call;

import javax.sip.ServerTransaction;

/**
 * A call's RFC 3312 precondition state (used by {@link Preconditions}; guarded by the call's monitor): whether the
 * call uses them, the two segments (the IMS peer's status is the gateway's "remote" one, the browser leg the "local"
 * one), MT alerting and an UPDATE held until the local segment is known.
 */
final class QosState {
    private boolean on;
    private String remote = "none";
    private boolean localMet;
    private boolean alerted;
    private ServerTransaction pendingUpdate;

    /** Preconditions are in use (MO: offered by us and answered with them; MT: asked for by the INVITE). */
    boolean on() { return on; }

    /** The IMS peer's own current QoS status, i.e. our "remote" segment. */
    String remote() { return remote; }

    /** The browser leg's media is up: the gateway's "local" segment is met. */
    boolean localMet() { return localMet; }

    /** MT: 180 + `alerting` sent (both segments met). */
    boolean alerted() { return alerted; }

    /** MT: an UPDATE waiting until the gateway's local QoS is met (null: none). */
    ServerTransaction pendingUpdate() { return pendingUpdate; }

    /** Whether the call uses preconditions, and the peer's status its SDP carried. */
    void use(boolean on, String peerStatus) {
        this.on = on;
        this.remote = peerStatus;
    }

    /** The peer reported its segment's status (an SDP with precondition lines). */
    void peerStatus(String status) { remote = status; }

    /** The browser leg carries media: our segment is met. */
    void localSegmentMet() { localMet = true; }

    /** Whether both segments are met (MT alerts then). */
    boolean bothMet() { return localMet && "sendrecv".equals(remote); }

    /** MT: ringing and `alerting` went. */
    void markAlerted() { alerted = true; }

    /** MT: the UPDATE is answered once our segment is known. */
    void holdUpdate(ServerTransaction st) { pendingUpdate = st; }

    /** The held UPDATE {@code st} is answered now. */
    void updateAnswered(ServerTransaction st) { if (pendingUpdate == st) pendingUpdate = null; }
}

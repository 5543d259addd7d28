package org.webrtcims.gw.call;

import javax.sip.ServerTransaction;

/** A call's RFC 3312 precondition state (owned by {@link Preconditions}; guarded by the call's monitor). */
final class QosState {
    /** Preconditions are in use (MO: offered by us and answered with them; MT: asked for by the INVITE). */
    boolean on;
    /** The IMS peer's own current QoS status, i.e. our "remote" segment. */
    String remote = "none";
    /** The browser leg's media is up: the gateway's "local" segment is met. */
    boolean localMet;
    /** MT: 180 + `alerting` sent (both segments met). */
    boolean alerted;
    /** MT: an UPDATE waiting until the gateway's local QoS is met. */
    ServerTransaction pendingUpdate;
}

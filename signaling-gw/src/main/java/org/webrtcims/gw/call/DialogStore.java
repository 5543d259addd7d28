package org.webrtcims.gw.call;

/**
 * Where a confirmed call's dialog is kept beyond this gateway (a gateway failover, docs/scale-out.md): told when a
 * call is confirmed and when it ends. There is a bean only with lab.failover.redis; without one the hooks in
 * {@link ConfirmedCalls} and {@link CallTeardown} do nothing. Called with the call's lock held: must not block.
 */
public interface DialogStore {
    /** The call {@code callId} of browser session {@code owner} (user {@code user}) is confirmed on {@code dialog}. */
    void confirmed(String callId, String owner, String user, javax.sip.Dialog dialog);

    /** The call ended (any reason): its dialog is no longer anyone's to end. */
    void ended(String callId);
}

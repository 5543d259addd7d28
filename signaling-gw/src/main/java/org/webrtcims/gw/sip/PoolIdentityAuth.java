package org.webrtcims.gw.sip;

import org.webrtcims.gw.sip.aka.ImsCredentials;

/**
 * A guest with an identity from the pool (TS 24.371 §6): no credentials of its own; the gateway REGISTERs the pool
 * identity {@link GuestPool} lent it by trusted node authentication, as for a web-authenticated user, and gives the
 * identity back to the pool once the registration ended (de-registered, refused, or ended by the network).
 */
final class PoolIdentityAuth extends TrustedNodeAuth {
    private final Runnable giveBack;
    private final java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();

    PoolIdentityAuth(ImsCredentials.Subscriber identity, String domain, Runnable giveBack) {
        super(identity, domain);
        this.giveBack = giveBack;
    }

    @Override public String scenario() { return "pool"; }

    /** Once: a second call must not free the identity again after another guest borrowed it. */
    @Override public void released() { if (released.compareAndSet(false, true)) giveBack.run(); }
}

package org.webrtcims.gw.sip;

import java.util.List;

/**
 * A user's registration moving from a gateway that died to this one (docs/scale-out.md, gateway failover): the
 * first REGISTER of a login also removes (Contact ;expires=0, RFC 3261 §10.2.2) the contacts a dead gateway
 * registered for the user, so the registrar never holds two bindings for one browser. There is a bean only with
 * lab.failover.redis; without one {@link RegisterTransaction} adds nothing.
 */
public interface ContactHandover {
    /** The contact URIs other gateways registered for {@code user} that no live gateway serves any more. */
    List<String> staleContacts(String user);

    /** {@code user} is registered by this gateway with {@code contact}, and {@code removed} are gone from the registrar. */
    void registered(String user, String contact, List<String> removed);

    /** This gateway de-registered {@code user}. */
    void unregistered(String user);
}

package org.webrtcims.gw.sip;

import org.webrtcims.gw.sip.aka.ImsCredentials;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The public user identities of the guest pool (the credentials file's {@code pool} lines, TS 24.371 §6): a guest
 * login borrows the first free one ({@link PoolIdentityAuth}), which is free again once its registration ended.
 */
final class GuestPool {
    private final List<ImsCredentials.Subscriber> identities;
    private final String domain;
    /** The IMPUs held by a guest session, or being registered for one. */
    private final Set<String> inUse = new HashSet<>();

    GuestPool(List<ImsCredentials.Subscriber> identities, String domain) {
        this.identities = List.copyOf(identities);
        this.domain = domain;
    }

    /** The pool lists identities: guest logins are possible. */
    boolean enabled() { return !identities.isEmpty(); }

    int size() { return identities.size(); }

    /** The first free identity, now in use until its registration is released; empty when all are in use. */
    synchronized Optional<PoolIdentityAuth> take() {
        for (ImsCredentials.Subscriber s : identities) {
            if (inUse.add(s.impu())) return Optional.of(new PoolIdentityAuth(s, domain, () -> giveBack(s.impu())));
        }
        return Optional.empty();
    }

    private synchronized void giveBack(String impu) { inUse.remove(impu); }

    /** How many identities are in use now. */
    synchronized int inUse() { return inUse.size(); }
}

package org.webrtcims.archfixture.clean.call;

import org.webrtcims.archfixture.clean.media.Relay;
import org.webrtcims.archfixture.clean.sdp.Sdp;
import org.webrtcims.archfixture.clean.sip.Ua;

/** Fixture (PackageNeverEdgesTest): calls join SIP, the relay and SDP. */
public final class Calls {
    private final Ua ua = new Ua();
    private final Relay relay = new Relay();

    public void place() { ua.invite(relay.offer(new Sdp())); }
}

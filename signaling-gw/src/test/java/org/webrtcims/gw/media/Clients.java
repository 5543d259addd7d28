package org.webrtcims.gw.media;

import java.time.Duration;
import java.util.List;

/** Test wiring: an RtpEngineClient over one NgClient (its relay with a breaker that probes every second). */
final class Clients {
    private Clients() {
    }

    static RtpEngineClient over(NgClient ng, RtpEngineLegs legs, String sessionPrefix) {
        return over(ng, new RtpEngineBreaker(String.valueOf(ng.server()), Duration.ofSeconds(1)), legs, sessionPrefix);
    }

    static RtpEngineClient over(NgClient ng, RtpEngineBreaker breaker, RtpEngineLegs legs, String sessionPrefix) {
        return new RtpEngineClient(new RtpEngineRelays(List.of(new RtpEngineRelay(ng, breaker))), legs, sessionPrefix);
    }

    static RtpEngineClient over(NgClient ng) {
        return over(ng, RtpEngineLegs.DEFAULT, "");
    }
}

package org.webrtcims.gw.media;

import java.util.Map;
import java.util.Objects;

/**
 * One rtpengine instance as the gateway sees it: its ng client and the breaker in front of it. With several
 * (`lab.rtpengine.ng` a list, docs/scale-out.md) each has its own breaker, so one relay down refuses only the
 * commands of the calls it holds, and new calls go to the others.
 */
public record RtpEngineRelay(NgClient ng, RtpEngineBreaker breaker) {
    public RtpEngineRelay {
        Objects.requireNonNull(ng, "ng");
        Objects.requireNonNull(breaker, "breaker");
    }

    /** Its ng address, "host:port". */
    public String name() {
        return ng.server().getHostString() + ":" + ng.server().getPort();
    }

    /** One ng command through the breaker: refused at once while it is open, else sent and its outcome recorded. */
    Map<String, Object> send(Map<String, Object> cmd) throws NgException {
        breaker.check(cmd.get(NgFlags.COMMAND));
        try {
            Map<String, Object> reply = ng.send(cmd);
            breaker.record(null);
            return reply;
        } catch (NgException e) {
            breaker.record(e);
            throw e;
        }
    }

    /** True when it answered pong (the breaker learns either way). */
    boolean ping() {
        try {
            boolean pong = "pong".equals(ng.send(NgCommands.ping()).get("result"));
            breaker.record(pong ? null : new NgException(NgException.Kind.PROTOCOL, "no pong"));
            return pong;
        } catch (NgException e) {
            breaker.record(e);
            return false;
        }
    }
}

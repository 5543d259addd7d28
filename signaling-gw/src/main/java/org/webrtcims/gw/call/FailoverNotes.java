package org.webrtcims.gw.call;

import java.util.List;
import java.util.Map;

/**
 * The calls another gateway ended after the gateway that held a browser session died (docs/scale-out.md, gateway
 * failover), asked by that session's token: each {callId, reason}. There is a bean only with lab.failover.redis.
 */
public interface FailoverNotes {
    /** The calls of the dead gateway's session {@code token} that were ended, and why; empty when none. Taken once. */
    List<Map<String, String>> takeEnded(String token);
}

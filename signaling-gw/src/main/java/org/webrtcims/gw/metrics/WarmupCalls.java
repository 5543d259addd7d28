package org.webrtcims.gw.metrics;

import org.springframework.stereotype.Component;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The call-ids of the gateway's start-up warm-up calls while they run (call/SetupWarmup, issue #26): the set-up
 * timeline, the ng command meters and the media reconciler leave these out, so that no metric, report or
 * reconciliation counts a warm-up call. Exact ids, added before a warm-up call sends anything and removed after its
 * rtpengine session is deleted: empty once the gateway is up. One bean, injected into the warm-up and the three
 * that leave its calls out; an object made without Spring (unit tests) gets an empty one of its own.
 */
@Component
public final class WarmupCalls {
    private final Set<String> ids = ConcurrentHashMap.newKeySet();

    public void begin(String callId) { ids.add(callId); }

    public void end(String callId) { ids.remove(callId); }

    /** True for a warm-up call's id (the gateway's call-id, or one that ends with it: rtpengine's, with its session prefix). */
    public boolean is(String callId) {
        if (callId == null || ids.isEmpty()) return false;
        if (ids.contains(callId)) return true;
        for (String id : ids) if (callId.endsWith(id)) return true;
        return false;
    }
}

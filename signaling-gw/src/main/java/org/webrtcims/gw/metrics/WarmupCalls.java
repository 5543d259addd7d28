package org.webrtcims.gw.metrics;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The call-ids of the gateway's start-up warm-up calls while they run (call/SetupWarmup, issue #26): the set-up
 * timeline, the ng command meters and the media reconciler leave these out, so that no metric, report or
 * reconciliation counts a warm-up call. Exact ids, added before a warm-up call sends anything and removed after its
 * rtpengine session is deleted: empty once the gateway is up.
 */
public final class WarmupCalls {
    private static final Set<String> IDS = ConcurrentHashMap.newKeySet();

    private WarmupCalls() { }

    public static void begin(String callId) { IDS.add(callId); }

    public static void end(String callId) { IDS.remove(callId); }

    /** True for a warm-up call's id (the gateway's call-id, or one that ends with it: rtpengine's, with its session prefix). */
    public static boolean is(String callId) {
        if (callId == null || IDS.isEmpty()) return false;
        if (IDS.contains(callId)) return true;
        for (String id : IDS) if (callId.endsWith(id)) return true;
        return false;
    }
}

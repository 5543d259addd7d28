package org.webrtcims.gw.media;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.webrtcims.gw.sdp.DataChannelSdp;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The data-channel half of each call's media (issue #25; TS 23.334 §5.20.2, the eIMS-AGW as data-channel endpoint):
 * the endpoint's session per call ({@link DataChannelClient}). Each call's SDP step (sdp/BrowserSdp with the call's
 * sdp/DataChannelSdp) splits every SDP and hands the data-channel section here through {@link #forCall}: the offer
 * (the browser's or the IMS side's), the answer to the endpoint's offer, the drop when a side rejected the section.
 * Here too: the call's counters (live, or the last ones once it ended) and the delete when the call ends. Without an
 * endpoint configured ({@link #off}) every offer is refused, and the call goes on without data channels. Real-time
 * text's commands (the T.140 channel bridged to `m=text`, issue #25) go through {@link RealTimeText}; an MT call
 * whose IMS offer has `m=text` starts its session with {@code text-offer from: ims}.
 */
public final class DataChannelLegs {
    private static final Logger log = LoggerFactory.getLogger(DataChannelLegs.class);

    /** What the gateway keeps of one call's session at the endpoint. */
    private static final class State {
        /** The endpoint has a session for the call (deleted when a side rejected the section or the call ended). */
        volatile boolean live;
        volatile DataChannelStats finalStats;
        /** System.nanoTime() when the call's session ended (0 = not yet): kept ENDED_KEEP_NANOS for the call info. */
        volatile long endedNanos;
    }

    /** How long an ended call's last counters stay for the call info (the call registry keeps ended calls as long). */
    private static final long ENDED_KEEP_NANOS = 10L * 60 * 1_000_000_000L;

    private final DataChannelClient client;
    private final RealTimeText text;
    private final Map<String, State> calls = new ConcurrentHashMap<>();

    /** client null: no endpoint; every data-channel offer is refused (the section answered with port 0). */
    public DataChannelLegs(DataChannelClient client) {
        this.client = client;
        this.text = new RealTimeText(client);
    }

    public static DataChannelLegs off() { return new DataChannelLegs(null); }

    /** Whether a data-channel endpoint is configured (lab.datachannel.ng). */
    public boolean on() { return client != null; }

    /** The endpoint as one call's SDP step uses it (sdp/DataChannelSdp): offers, the answer, the drop. */
    public DataChannelSdp.Endpoint forCall(String callId) { return new CallEndpoint(callId); }

    @FunctionalInterface
    private interface Offer { DataChannelClient.Sdps send(DataChannelClient endpoint) throws NgException; }

    /** One call's door to the endpoint; refusals are logged here and leave the call without data channels. */
    private final class CallEndpoint implements DataChannelSdp.Endpoint {
        private final String callId;

        CallEndpoint(String callId) { this.callId = callId; }

        @Override
        public DataChannelSdp.Sdps offerFromBrowser(String browserSdp) {
            return offer("the browser's offer", e -> e.offerFromBrowser(callId, browserSdp));
        }

        @Override
        public DataChannelSdp.Sdps offerFromIms(String imsSdp) { return offer("the IMS offer", e -> e.offerFromIms(callId, imsSdp)); }

        private DataChannelSdp.Sdps offer(String what, Offer offer) {
            State st = start(callId);
            try {
                DataChannelClient.Sdps r = offer.send(endpoint());
                st.live = true;
                return new DataChannelSdp.Sdps(r.browser(), r.ims());
            } catch (NgException | IllegalArgumentException e) {
                log.warn("call {}: the data-channel endpoint refused {} ({}): the call goes on without data channels", callId, what, e.getMessage());
                return null;
            }
        }

        @Override
        public boolean answer(String sdp, boolean fromIms) {
            try {
                log.info("call {}: {} accepted data channels {}", callId, fromIms ? "the IMS side" : "the browser", client.answer(callId, sdp));
                return true;
            } catch (NgException e) {
                drop("the data-channel endpoint refused " + (fromIms ? "the IMS answer" : "the browser's answer") + " (" + e.getMessage() + ")");
                return false;
            }
        }

        @Override
        public void drop(String why) {
            log.info("call {}: {}: no data channels on this call", callId, why);
            State st = calls.get(callId);
            if (st != null) deleteSession(callId, st);
        }

        @Override
        public String textOffer(int channel) { return text.offer(callId, channel); }

        @Override
        public DataChannelSdp.Sdps textOfferFromIms(String imsSdp) {
            State live = calls.get(callId);
            State st = live != null && live.live ? live : start(callId); // with m=application too: the same session
            DataChannelSdp.Sdps r = text.offerFromIms(callId, imsSdp);
            if (r != null) st.live = true;
            return r;
        }

        @Override
        public boolean textAnswer(String imsSdp) { return text.answer(callId, imsSdp); }

        @Override
        public void dropText(String why) { text.stopped(callId, why); }
    }

    /** The endpoint's client; without one a data-channel section is refused like an endpoint's refusal. */
    private DataChannelClient endpoint() throws NgException {
        if (client == null) {
            throw new NgException(NgException.Kind.ERROR_RESULT, "no data-channel endpoint is configured (lab.datachannel.ng)");
        }
        return client;
    }

    /** Whether the call has (or had) a data-channel session at the endpoint. */
    public boolean has(String callId) {
        State st = calls.get(callId);
        return st != null && (st.live || st.finalStats != null);
    }

    /** The call's data-channel counters: live from the endpoint, the last ones after the call, null without any. */
    public DataChannelStats stats(String callId) {
        State st = calls.get(callId);
        if (st == null) return null;
        if (!st.live) return st.finalStats;
        try {
            return client.query(callId);
        } catch (NgException e) {
            log.debug("data-channel query {} failed: {}", callId, e.getMessage());
            return st.finalStats;
        }
    }

    /** The call ended: its session at the endpoint is deleted, its last counters kept for the call info. */
    public void release(String callId) {
        State st = calls.get(callId);
        if (st == null) return;
        if (st.endedNanos == 0) st.endedNanos = System.nanoTime();
        deleteSession(callId, st);
    }

    private void deleteSession(String callId, State st) {
        if (!st.live) return;
        st.live = false;
        try {
            st.finalStats = client.delete(callId);
        } catch (NgException e) {
            log.warn("data-channel delete {} failed: {}", callId, e.getMessage());
        }
    }

    /** A new call's state; ended calls older than ENDED_KEEP_NANOS are forgotten meanwhile. */
    private State start(String callId) {
        long now = System.nanoTime();
        calls.values().removeIf(s -> s.endedNanos != 0 && now - s.endedNanos > ENDED_KEEP_NANOS);
        State st = new State();
        calls.put(callId, st);
        return st;
    }
}

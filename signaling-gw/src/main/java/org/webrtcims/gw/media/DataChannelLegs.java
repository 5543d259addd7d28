package org.webrtcims.gw.media;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.webrtcims.gw.sdp.DataChannelSections;
import org.webrtcims.gw.sdp.TextSections;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * The data-channel half of each call's media (issue #25; TS 23.334 §5.20.2, the eIMS-AGW as data-channel endpoint):
 * every SDP that crosses the gateway is split here. Its `m=application UDP/DTLS/SCTP webrtc-datachannel` section goes
 * to the data-channel endpoint ({@link DataChannelClient}), the rest to rtpengine (the {@code rtp} step the call layer
 * passes in), and the two results are joined again, the endpoint's section at the m-line index it had (RFC 3264 §6).
 * Toward IMS the SDP then says `a=ice-lite` (the endpoint is ICE-lite; rtpengine removes ICE from the audio there);
 * toward the browser it has no BUNDLE group: each m-line keeps its own transport ({@link DataChannelSections#withoutBundle}).
 * <p>
 * One method per direction of an SDP; each serves the call's first exchange and its re-offers. The endpoint takes one
 * offer/answer per call: later exchanges keep the sections it gave (same port, ICE credentials and fingerprint, so
 * nothing changes for the channels), and a data-channel section first offered in a re-offer starts the call's session
 * then. When the endpoint fails or a side rejects the section, the call goes on without data channels: the section is
 * answered with port 0 (and not offered onward), the endpoint's session deleted. Without an endpoint configured
 * ({@link #off}) every data-channel section is refused that way (rtpengine has no SCTP: it would only mangle it).
 */
public final class DataChannelLegs {
    private static final Logger log = LoggerFactory.getLogger(DataChannelLegs.class);

    /** What the gateway keeps of one call's data-channel section. */
    private static final class State {
        final int index;
        /** The endpoint has a session for the call (deleted when a side rejected the section or the call ended). */
        volatile boolean live;
        /** The endpoint took the answer to its offer. */
        volatile boolean answered;
        /** The section last given to the browser and to the IMS side. */
        volatile String toBrowser;
        volatile String toIms;
        volatile DataChannelStats finalStats;
        /** System.nanoTime() when the call's session ended (0 = not yet): kept ENDED_KEEP_NANOS for the call info. */
        volatile long endedNanos;

        State(int index) { this.index = index; }
    }

    /** How long an ended call's last counters stay for the call info (the call registry keeps ended calls as long). */
    private static final long ENDED_KEEP_NANOS = 10L * 60 * 1_000_000_000L;

    private final DataChannelClient client;
    /** Real-time text: a T.140 channel in the browser's section becomes m=text toward IMS (RFC 8865 ↔ RFC 4103). */
    private final RealTimeText text;
    private final Map<String, State> calls = new ConcurrentHashMap<>();

    /** client null: no endpoint, SDPs go to rtpengine unchanged. */
    public DataChannelLegs(DataChannelClient client) {
        this.client = client;
        this.text = new RealTimeText(client);
    }

    public static DataChannelLegs off() { return new DataChannelLegs(null); }

    /** Whether a data-channel endpoint is configured (lab.datachannel.ng). */
    public boolean on() { return client != null; }

    /** An SDP offer from the browser (MO, MT offerless, or a re-offer): the offer toward IMS. */
    public String fromBrowserOffer(String callId, String browserSdp, UnaryOperator<String> rtp) {
        DataChannelSections.Split s = DataChannelSections.split(browserSdp);
        State st = calls.get(callId);
        if (s == null && st == null) return rtp.apply(browserSdp);
        String imsRest = rtp.apply(s == null ? browserSdp : s.rest());
        if (st != null) return toIms(callId, st, imsRest);
        st = start(callId, s.index());
        if (s.rejected()) {
            st.toBrowser = DataChannelSections.rejected(s.section());
            return imsRest;
        }
        try {
            DataChannelClient.Sdps r = endpoint().offerFromBrowser(callId, browserSdp);
            st.live = true;
            st.toBrowser = DataChannelSections.sectionOf(r.browser(), null);
            st.toIms = DataChannelSections.sectionOf(r.ims(), null);
            // a browser section with T.140 channels alone needs no m=application toward IMS: m=text carries it
            if (text.offer(callId, s.section()) != null && TextSections.onlyT140(s.section())) st.toIms = null;
        } catch (NgException | IllegalArgumentException e) {
            log.warn("call {}: the data-channel endpoint refused the browser's offer ({}): the call goes on without data channels", callId, e.getMessage());
            st.toBrowser = DataChannelSections.rejected(s.section());
        }
        return toIms(callId, st, imsRest);
    }

    /** An SDP answer from IMS to an offer of the browser's: the answer toward the browser. */
    public String fromImsAnswer(String callId, String imsSdp, UnaryOperator<String> rtp) {
        State st = calls.get(callId);
        if (st == null) return rtp.apply(imsSdp);
        imsSdp = text.fromImsAnswer(callId, imsSdp);
        DataChannelSections.Split s = DataChannelSections.split(imsSdp);
        String browserRest = rtp.apply(s == null ? imsSdp : s.rest());
        if (st.live && !st.answered && st.toIms != null) {
            if (s == null || s.rejected()) {
                drop(callId, st, "the IMS side rejected the data-channel section");
            } else {
                try {
                    log.info("call {}: the IMS side accepted data channels {}", callId, client.answer(callId, imsSdp));
                    st.answered = true;
                } catch (NgException e) {
                    drop(callId, st, "the data-channel endpoint refused the IMS answer (" + e.getMessage() + ")");
                }
            }
        }
        return DataChannelSections.withoutBundle(DataChannelSections.merge(browserRest, st.toBrowser, st.index));
    }

    /** An SDP offer from IMS (MT, or a re-offer): the offer toward the browser. */
    public String fromImsOffer(String callId, String imsSdp, UnaryOperator<String> rtp) {
        DataChannelSections.Split s = DataChannelSections.split(imsSdp);
        State st = calls.get(callId);
        if (s == null && st == null && TextSections.split(imsSdp) != null) return textFromIms(callId, imsSdp, rtp);
        imsSdp = text.withoutText(callId, imsSdp);
        if (s == null && st == null) return rtp.apply(imsSdp);
        String browserRest = rtp.apply(s == null ? imsSdp : s.rest());
        if (st != null) return toBrowserOffer(st, browserRest);
        st = start(callId, s.index());
        if (s.rejected()) {
            st.toIms = DataChannelSections.rejected(s.section());
            return browserRest;
        }
        try {
            DataChannelClient.Sdps r = endpoint().offerFromIms(callId, imsSdp);
            st.live = true;
            st.toIms = DataChannelSections.sectionOf(r.ims(), null);
            st.toBrowser = DataChannelSections.sectionOf(r.browser(), DataChannelSections.freeMid(browserRest));
        } catch (NgException | IllegalArgumentException e) {
            log.warn("call {}: the data-channel endpoint refused the IMS offer ({}): the call goes on without data channels", callId, e.getMessage());
            st.toIms = DataChannelSections.rejected(s.section());
        }
        return toBrowserOffer(st, browserRest);
    }

    /**
     * MT real-time text: an IMS offer with `m=text` and no data-channel section. rtpengine gets it without `m=text`;
     * the browser is offered the endpoint's T.140 channel at the m=text's index (RealTimeText); the browser's answer
     * then goes to the endpoint as for any call from IMS, and the answer toward IMS gets the endpoint's `m=text`.
     */
    private String textFromIms(String callId, String imsSdp, UnaryOperator<String> rtp) {
        String browserRest = rtp.apply(TextSections.split(imsSdp).rest());
        RealTimeText.FromIms r = text.offerFromIms(callId, imsSdp);
        State st = start(callId, r.index());
        if (r.browserSection() == null) return browserRest;
        st.live = true;
        st.toBrowser = DataChannelSections.sectionOf(r.browserSection(), DataChannelSections.freeMid(browserRest));
        return toBrowserOffer(st, browserRest);
    }

    /** An SDP answer from the browser to an offer from IMS: the answer toward IMS. */
    public String fromBrowserAnswer(String callId, String browserSdp, UnaryOperator<String> rtp) {
        State st = calls.get(callId);
        if (st == null) return rtp.apply(browserSdp);
        DataChannelSections.Split s = DataChannelSections.split(browserSdp);
        String imsRest = rtp.apply(s == null ? browserSdp : s.rest());
        if (st.live && !st.answered) {
            if (s == null || s.rejected()) {
                drop(callId, st, "the browser rejected the data-channel section");
            } else {
                try {
                    log.info("call {}: the browser accepted data channels {}", callId, client.answer(callId, browserSdp));
                    st.answered = true;
                } catch (NgException e) {
                    drop(callId, st, "the data-channel endpoint refused the browser's answer (" + e.getMessage() + ")");
                }
            }
        }
        return toIms(callId, st, imsRest);
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
        text.release(callId);
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
    private State start(String callId, int index) {
        long now = System.nanoTime();
        calls.values().removeIf(s -> s.endedNanos != 0 && now - s.endedNanos > ENDED_KEEP_NANOS);
        State st = new State(index);
        calls.put(callId, st);
        return st;
    }

    private String toIms(String callId, State st, String imsRest) {
        if (st.toIms == null) return text.toIms(callId, imsRest);
        String out = text.toIms(callId, DataChannelSections.merge(imsRest, st.toIms, st.index));
        return st.live ? DataChannelSections.withSessionIceLite(out) : out;
    }

    private String toBrowserOffer(State st, String browserRest) {
        if (st.toBrowser == null) return browserRest;
        String out = DataChannelSections.withoutBundle(DataChannelSections.merge(browserRest, st.toBrowser, st.index));
        return st.live ? DataChannelSections.withSessionIceLite(out) : out;
    }

    private void drop(String callId, State st, String why) {
        log.info("call {}: {}: no data channels on this call", callId, why);
        deleteSession(callId, st);
        if (st.toBrowser != null) st.toBrowser = DataChannelSections.rejected(st.toBrowser);
        if (st.toIms != null) st.toIms = DataChannelSections.rejected(st.toIms);
    }
}

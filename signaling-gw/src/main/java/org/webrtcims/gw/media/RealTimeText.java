package org.webrtcims.gw.media;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.webrtcims.gw.sdp.DataChannelSections;
import org.webrtcims.gw.sdp.TextSections;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Real-time text of each call (issue #25; RFC 8865 §6, the gateway between a T.140 data channel and RFC 4103 RTP
 * text): when the browser's data-channel section has a T.140 channel (`a=dcmap:<id> …;subprotocol="t140"`), the
 * data-channel endpoint's text bridge is asked for the `m=text` section ({@code text-offer}) that goes into every
 * offer toward IMS, as its last m-line; the IMS answer's `m=text` section is taken out (rtpengine and the browser
 * never see it) and given to the bridge once ({@code text-answer}). {@link DataChannelLegs} calls it for the call's
 * data-channel session; the endpoint's {@code delete} of that session ends the bridge too.
 * <p>
 * When the endpoint refuses the text offer or the IMS side rejects `m=text` (port 0), the call goes on without text:
 * the T.140 channel stays open toward the browser and carries nothing, a line in the gateway's log says why.
 */
public final class RealTimeText {
    private static final Logger log = LoggerFactory.getLogger(RealTimeText.class);

    /** One call's text: the section offered toward IMS, and whether the IMS side's answer reached the endpoint. */
    private static final class State {
        volatile String toIms;
        volatile boolean answered;
        /** MT: the m-line index of `m=text` in the IMS offer, where the answer has it too; -1: the last m-line. */
        volatile int index = -1;
    }

    /** A call from IMS with text: the endpoint's data-channel section toward the browser (null: text refused). */
    public record FromIms(String browserSection, int index) { }

    private final DataChannelClient client;
    private final Map<String, State> calls = new ConcurrentHashMap<>();

    /** client null: no endpoint, never any text. */
    public RealTimeText(DataChannelClient client) { this.client = client; }

    /**
     * The browser's data-channel section of a call whose session the endpoint has just created: the `m=text`
     * section toward IMS, or null (no T.140 channel, or the endpoint refused).
     */
    public String offer(String callId, String browserSection) {
        Integer channel = TextSections.t140Channel(browserSection);
        if (channel == null || client == null) return null;
        try {
            String section = TextSections.sectionOf(client.textOffer(callId, channel));
            State st = new State();
            st.toIms = section;
            calls.put(callId, st);
            log.info("call {}: real-time text: the browser's T.140 channel {} bridged to m=text toward IMS", callId, channel);
            return section;
        } catch (NgException | IllegalArgumentException e) {
            log.warn("call {}: the data-channel endpoint refused real-time text ({}): the call goes on without text", callId, e.getMessage());
            return null;
        }
    }

    /**
     * A new call from IMS whose offer has `m=text` (and no data-channel section): the endpoint offers the browser a
     * T.140 channel and answers the `m=text`; the answer toward IMS gets that section at the offer's index
     * ({@link #toIms}). Null when the offer has no `m=text`; a {@code browserSection} null when the endpoint refused
     * (the answer toward IMS then rejects `m=text`, port 0).
     */
    public FromIms offerFromIms(String callId, String imsSdp) {
        TextSections.Split s = TextSections.split(imsSdp);
        if (s == null) return null;
        State st = new State();
        st.index = TextSections.index(imsSdp);
        st.answered = true;
        calls.put(callId, st);
        if (s.rejected() || client == null) {
            st.toIms = TextSections.rejected(s.section());
            return new FromIms(null, st.index);
        }
        try {
            DataChannelClient.Sdps r = client.textOfferFromIms(callId, imsSdp);
            st.toIms = TextSections.sectionOf(r.ims());
            log.info("call {}: real-time text from IMS: m=text answered, a T.140 channel offered to the browser", callId);
            return new FromIms(r.browser(), st.index);
        } catch (NgException | IllegalArgumentException e) {
            log.warn("call {}: the data-channel endpoint refused the IMS side's text ({}): the call goes on without text", callId, e.getMessage());
            st.toIms = TextSections.rejected(s.section());
            return new FromIms(null, st.index);
        }
    }

    /** An SDP from IMS (a re-offer of a call with text): without its `m=text` section, which rtpengine must not get. */
    public String withoutText(String callId, String imsSdp) {
        if (!calls.containsKey(callId)) return imsSdp;
        TextSections.Split s = TextSections.split(imsSdp);
        return s == null ? imsSdp : s.rest();
    }

    /** Whether the call offers text toward IMS. */
    public boolean has(String callId) { return calls.containsKey(callId); }

    /** An SDP toward IMS (an offer, or a re-offer) with the call's `m=text` section as its last m-line. */
    public String toIms(String callId, String imsSdp) {
        State st = calls.get(callId);
        if (st == null) return imsSdp;
        return st.index < 0 ? TextSections.append(imsSdp, st.toIms) : DataChannelSections.merge(imsSdp, st.toIms, st.index);
    }

    /**
     * An SDP from IMS answering an offer with the call's text: the same without its `m=text` section, which goes to
     * the endpoint on the first answer. A rejected or missing section ends the call's text.
     */
    public String fromImsAnswer(String callId, String imsSdp) {
        State st = calls.get(callId);
        if (st == null) return imsSdp;
        TextSections.Split s = TextSections.split(imsSdp);
        if (st.answered) return s == null ? imsSdp : s.rest();
        if (s == null || s.rejected()) {
            stop(callId, st, s == null ? "the IMS answer has no m=text section" : "the IMS side rejected m=text (port 0)");
            return s == null ? imsSdp : s.rest();
        }
        try {
            int generations = client.textAnswer(callId, imsSdp);
            st.answered = true;
            log.info("call {}: real-time text answered by IMS, {} redundant generation(s)", callId, generations);
        } catch (NgException e) {
            stop(callId, st, "the data-channel endpoint refused the IMS text answer (" + e.getMessage() + ")");
        }
        return s.rest();
    }

    /** The call ended (its endpoint session is deleted by {@link DataChannelLegs}). */
    public void release(String callId) { calls.remove(callId); }

    /** Text stays in re-offers as a rejected m-line (RFC 3264 §8.2: m-lines are never removed). */
    private void stop(String callId, State st, String why) {
        log.info("call {}: {}: no real-time text on this call", callId, why);
        st.toIms = TextSections.rejected(st.toIms);
        st.answered = true;
    }
}

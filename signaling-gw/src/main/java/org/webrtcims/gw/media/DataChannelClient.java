package org.webrtcims.gw.media;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The gateway's door to the data-channel endpoint (media-relay/datachannel, docs/datachannel.md "Control protocol"):
 * one method per command, sent with the ng framing rtpengine's commands use ({@link NgClient}: cookie, bencode,
 * retransmission with the same cookie). Call-ids carry the session prefix of the gateway's rtpengine sessions, so
 * two gateways on one endpoint keep apart. "sdp" in a reply is always what goes to the browser, "ims-sdp" what goes
 * to the IMS side.
 */
public class DataChannelClient implements AutoCloseable {
    /** The two SDPs of an offer: toward the browser (its answer, or the offer to it) and toward the IMS side. */
    public record Sdps(String browser, String ims) { }

    private final NgClient ng;
    private final String sessionPrefix;

    public DataChannelClient(NgClient ng, String sessionPrefix) {
        this.ng = ng;
        this.sessionPrefix = sessionPrefix == null ? "" : sessionPrefix;
    }

    /** The endpoint's control address. */
    public String server() { return String.valueOf(ng.server()); }

    /** The browser's offer (its whole SDP; the endpoint reads its data-channel section and a=dcmap lines). */
    public Sdps offerFromBrowser(String callId, String browserSdp) throws NgException {
        Map<String, Object> r = ng.send(command("offer", callId, "sdp", browserSdp));
        return new Sdps(string(r, "sdp"), string(r, "ims-sdp"));
    }

    /** The IMS side's offer (a call from IMS): the endpoint's offer toward the browser and its answer to IMS. */
    public Sdps offerFromIms(String callId, String imsSdp) throws NgException {
        Map<String, Object> cmd = command("offer", callId, "sdp", imsSdp);
        cmd.put("from", "ims");
        Map<String, Object> r = ng.send(cmd);
        return new Sdps(string(r, "sdp"), string(r, "ims-sdp"));
    }

    /** The answer to the endpoint's offer (the IMS side's, or the browser's on a call from IMS): the channel ids it kept. */
    public List<Integer> answer(String callId, String sdp) throws NgException {
        Map<String, Object> r = ng.send(command("answer", callId, "sdp", sdp));
        List<Integer> ids = new ArrayList<>();
        if (r.get("channels") instanceof List<?> l) for (Object o : l) if (o instanceof Number n) ids.add(n.intValue());
        return ids;
    }

    /**
     * Real-time text for the call (docs/datachannel.md "What the gateway sends for real-time text"): the endpoint
     * bridges the browser's T.140 channel ({@code channel}: its negotiated stream id) to RFC 4103 RTP text and gives
     * the SDP whose `m=text` section goes into the offer toward IMS. The call's {@link #offerFromBrowser} comes first.
     */
    public String textOffer(String callId, int channel) throws NgException {
        Map<String, Object> cmd = command("text-offer", callId, null, null);
        cmd.put("channel", (long) channel);
        return string(ng.send(cmd), "sdp");
    }

    /**
     * A call from IMS with text (MT: `m=text` and no data-channel section): the endpoint offers the browser a T.140
     * channel and answers the IMS side's `m=text` (docs/datachannel.md "text-offer from: ims").
     */
    public Sdps textOfferFromIms(String callId, String imsSdp) throws NgException {
        Map<String, Object> cmd = command("text-offer", callId, "sdp", imsSdp);
        cmd.put("from", "ims");
        Map<String, Object> r = ng.send(cmd);
        return new Sdps(string(r, "sdp"), string(r, "ims-sdp"));
    }

    /** The IMS side's answer with its `m=text` section: the redundant generations the endpoint sends with (0: plain t140). */
    public int textAnswer(String callId, String imsSdp) throws NgException {
        Map<String, Object> r = ng.send(command("text-answer", callId, "sdp", imsSdp));
        return r.get("redundancy") instanceof Number n ? n.intValue() : 0;
    }

    /** The session's legs, channels and per-direction counters (docs/datachannel.md `query`). */
    public DataChannelStats query(String callId) throws NgException {
        return DataChannelStats.of(ng.send(command("query", callId, null, null)));
    }

    /** Ends the session; its last counters. */
    public DataChannelStats delete(String callId) throws NgException {
        return DataChannelStats.of(ng.send(command("delete", callId, null, null)));
    }

    private Map<String, Object> command(String name, String callId, String key, String value) {
        Map<String, Object> cmd = new LinkedHashMap<>();
        cmd.put("command", name);
        cmd.put("call-id", sessionPrefix + callId);
        if (key != null) cmd.put(key, value);
        return cmd;
    }

    private static String string(Map<String, Object> reply, String key) throws NgException {
        if (reply.get(key) instanceof String s && !s.isEmpty()) return s;
        throw new NgException(NgException.Kind.PROTOCOL, "the data-channel endpoint's reply has no '" + key + "'");
    }

    @Override
    public void close() { ng.close(); }
}

package org.webrtcims.gw.media;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ng vocabulary the gateway speaks to rtpengine, each command, key and value named once (docs/architecture.md
 * "rtpengine flags"; the spellings are the ones rtpengine 10.5 was seen to honour), and the two leg shapes: the
 * browser leg is UDP/TLS/RTP/SAVPF with ICE and rtcp-mux, the IMS leg plain RTP/AVP without ICE, with RTCP demuxed
 * and RTP header extensions stripped. {@link NgCommands} builds every command from these.
 */
final class NgFlags {
    private NgFlags() {
    }

    // commands
    static final String OFFER = "offer";
    static final String ANSWER = "answer";
    static final String DELETE = "delete";
    static final String QUERY = "query";
    static final String LIST = "list";
    static final String PLAY_DTMF = "play DTMF";
    static final String STATISTICS = "statistics";
    static final String PING = "ping";

    // keys
    static final String COMMAND = "command";
    static final String CALL_ID = "call-id";
    static final String FROM_TAG = "from-tag";
    static final String TO_TAG = "to-tag";
    static final String SDP = "sdp";
    static final String FLAGS = "flags";
    static final String REPLACE = "replace";
    static final String CODEC = "codec";
    static final String DTLS = "DTLS";
    static final String SDES = "SDES";
    static final String DIRECTION = "direction";
    static final String ICE_LITE = "ICE-lite";
    /** The address family the recipient of the SDP rtpengine writes expects: IP4 or IP6. */
    static final String ADDRESS_FAMILY = "address family";

    // flags
    static final String TRUST_ADDRESS = "trust-address";
    static final String STRIP_EXTMAP = "strip-extmap";
    static final String GENERATE_MID = "generate-mid";
    /**
     * Re-offers: a browser's ICE restart brings a new default port in its m= line, and without this rtpengine would
     * move the other leg to new ports too, forcing a re-INVITE toward IMS.
     */
    static final String PORT_LATCHING = "port-latching";
    /**
     * Per call, on the commands that carry the IMS party's SDP toward the browser (answerFromIms, offerFromIms):
     * rtpengine 10.5 then runs the browser's stream through its codec engine, and `play DTMF` from the browser's
     * tag works. Checked against the daemon: the flag on an offer marks the answerer's stream, on an answer the
     * offerer's; without it `play DTMF` answers "ok" and plays nothing. Its price: the browser's audio is decoded
     * and re-encoded, also when both legs use the same codec, so only calls that ask for it carry it.
     */
    static final String INJECT_DTMF = "inject-DTMF";

    // ICE-lite sides: toward the party that sent the offer (`backward`) or the one it goes to (`forward`)
    static final String BACKWARD = "backward";
    static final String FORWARD = "forward";

    /** RFC 4733 volume of injected events: -8 dBm0 (rtpengine 10.5 otherwise sends 63, i.e. -63 dBm0). */
    static final int DTMF_VOLUME = 8;
    /** Silence after each injected digit (rtpengine's own default and minimum). */
    static final int DTMF_PAUSE_MS = 100;
    /** `list` limit: rtpengine's default of 32 is too few for load runs; 1000 ids still fit one datagram. */
    static final int LIST_LIMIT = 1000;
    /** `delete-delay` 0: else rtpengine 10.5 keeps a deleted call listed for 30 s. */
    static final int DELETE_DELAY = 0;

    /**
     * What replaces a browser's `c=IN IP4 0.0.0.0` when all its candidates are mDNS names (MdnsSdp): TEST-NET-1
     * (RFC 5737), never routed. rtpengine only needs a non-zero address there to not take the stream for held; it
     * sends to what ICE finds, never to this one.
     */
    static final String MDNS_PLACEHOLDER = "192.0.2.1";

    /** A new command dictionary. */
    static Map<String, Object> command(String name) {
        Map<String, Object> cmd = new LinkedHashMap<>();
        cmd.put(COMMAND, name);
        return cmd;
    }

    /** The IMS leg: plain RTP/AVP, no ICE, RTCP demuxed, header extensions stripped. */
    static void towardIms(Map<String, Object> cmd) {
        cmd.put("transport-protocol", "RTP/AVP");
        cmd.put("ICE", "remove");
        cmd.put("rtcp-mux", List.of("demux"));
        cmd.put(FLAGS, flags(false, TRUST_ADDRESS, STRIP_EXTMAP));
    }

    /** The browser leg: DTLS-SRTP with feedback, ICE, rtcp-mux; inject-DTMF when the call takes `play DTMF`. */
    static void towardBrowser(Map<String, Object> cmd, boolean injectDtmf) {
        cmd.put("transport-protocol", "UDP/TLS/RTP/SAVPF");
        cmd.put("ICE", "force");
        cmd.put("rtcp-mux", List.of("offer", "require"));
        if (injectDtmf) cmd.put(FLAGS, flags(true));
    }

    /** A re-offer keeps the other leg's ports ({@link #PORT_LATCHING}), after the flags already set. */
    @SuppressWarnings("unchecked")
    static void keepPorts(Map<String, Object> cmd) {
        ((List<Object>) cmd.get(FLAGS)).add(PORT_LATCHING);
    }

    /** The given ng flags, plus inject-DTMF when the call takes `play DTMF` from the browser. */
    static List<Object> flags(boolean injectDtmf, String... base) {
        List<Object> out = new ArrayList<>(List.of((Object[]) base));
        if (injectDtmf) out.add(INJECT_DTMF);
        return out;
    }
}

package org.webrtcims.gw.sdp;

/**
 * A browser's SDP on its way to IMS, in one step: the call core hands each browser offer or answer here once and gets
 * back a {@link ToIms}. The step checks the SDP (JAIN-SIP's SDP parser, {@link SdpInspector}; for a call's first offer no
 * transport shared by a BUNDLE group, {@link Bundle#sharedTransport}; an address the relay can reach,
 * {@link UsableAddress}), writes RFC 4145's default DTLS role out ({@link DtlsSetupDefaults}), notes the relay's DTLS role
 * toward the browser ({@link DtlsRole}), has the relay make the IMS leg's SDP, takes the browser-only lines out of
 * it ({@link ImsSdpFilter}) and, for an MO offer with preconditions, writes their status lines ({@link QosPreconditions}). The relay is a function: sdp/ knows no rtpengine and no call.
 */
public final class BrowserSdp {
    private BrowserSdp() { }

    /** What makes the IMS leg's SDP from the browser's (in the gateway: the call's rtpengine offer or answer). */
    @FunctionalInterface
    public interface Relay {
        String toIms(String browserSdp);
    }

    /**
     * The SDP toward IMS: {@code imsSdp} as the relay made it without browser-only lines, with the precondition status
     * lines asked for; {@code mediaSdp}, the same without them; {@code browserSdp}, the
     * browser's SDP as the relay got it (an offer's BUNDLE group shapes the answer, {@link Bundle#answerKeepingSingleGroup});
     * {@code dtlsRole}, the relay's DTLS role toward the browser (RFC 5763 §5); {@code firstAudioCodec}, the
     * browser's first audio codec as its SDP names it (null: none).
     */
    public record ToIms(String imsSdp, String mediaSdp, String browserSdp, String dtlsRole, String firstAudioCodec) { }

    /** Why a browser SDP is refused; the message is one line for the browser. */
    public static final class Refused extends IllegalArgumentException {
        /** UNREADABLE: not an SDP the gateway can use (`bad-sdp`); NO_USABLE_ADDRESS: the relay could never reach the browser. */
        public enum Kind { UNREADABLE, NO_USABLE_ADDRESS }

        private final Kind kind;

        Refused(Kind kind, String message) {
            super(message);
            this.kind = kind;
        }

        public Kind kind() { return kind; }
    }

    /**
     * The browser's offer (a call's first when {@code first}: then a transport shared by BUNDLE is refused) made into
     * the SDP offer toward IMS by {@code relay}, which answers the browser as {@link DtlsRole#answering} says, with
     * {@code qos}'s RFC 3312 status lines ({@link QosPreconditions}; null: none); the relay is not asked when the
     * offer is refused.
     *
     * @throws Refused when the offer is unreadable or unreachable
     */
    public static ToIms offerToIms(String browserSdp, boolean first, QosPreconditions.Status qos, Relay relay) {
        String codec = firstAudioCodec(browserSdp);
        String shared = first ? Bundle.sharedTransport(browserSdp) : null;
        if (shared != null) throw new Refused(Refused.Kind.UNREADABLE, shared);
        requireUsableAddress(browserSdp);
        String sdp = DtlsSetupDefaults.explicit(browserSdp, true);
        String media = ImsSdpFilter.toIms(relay.toIms(sdp));
        return new ToIms(qos == null ? media : QosPreconditions.withStatus(media, qos), media, sdp, DtlsRole.answering(sdp), codec);
    }

    /**
     * The browser's answer (to an IMS offer or re-offer) made into the SDP answer toward IMS by {@code relay}; the
     * relay's DTLS role is then the opposite of the browser's ({@link DtlsRole#oppositeOf}).
     *
     * @throws Refused when the answer is unreadable or unreachable
     */
    public static ToIms answerToIms(String browserSdp, Relay relay) {
        String codec = firstAudioCodec(browserSdp);
        requireUsableAddress(browserSdp);
        String sdp = DtlsSetupDefaults.explicit(browserSdp, false);
        String media = ImsSdpFilter.toIms(relay.toIms(sdp));
        return new ToIms(media, media, sdp, DtlsRole.oppositeOf(sdp), codec);
    }

    private static String firstAudioCodec(String browserSdp) {
        try {
            return SdpInspector.inspect(browserSdp).firstAudioCodec();
        } catch (IllegalArgumentException e) {
            throw new Refused(Refused.Kind.UNREADABLE, e.getMessage());
        }
    }

    private static void requireUsableAddress(String browserSdp) {
        String problem = UsableAddress.problem(browserSdp);
        if (problem != null) throw new Refused(Refused.Kind.NO_USABLE_ADDRESS, "browser SDP refused: " + problem);
    }
}

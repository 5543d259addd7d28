package org.webrtcims.gw.sdp;

/**
 * Each SDP between the browser and IMS in one step: the call's media leg hands every offer and answer here once, in
 * either direction, and gets back what goes to the other side. First the call's data-channel section is taken out
 * ({@link DataChannelSdp}: the rest goes to the relay, the section to the data-channel endpoint, and the endpoint's is
 * put back at its index afterwards); so is an IMS SDP's `m=text` section when the call's real-time text takes it
 * ({@link DataChannelSdp#withoutText}). Toward IMS the step then checks the rest (JAIN-SIP's SDP parser,
 * {@link SdpInspector}; for a call's first offer no transport shared by a BUNDLE group, {@link Bundle#sharedTransport};
 * an address the relay can reach, {@link UsableAddress}), writes RFC 4145's default DTLS role out
 * ({@link DtlsSetupDefaults}), takes an offer's browser-only payload formats out ({@link BrowserOnlyFormats}), notes
 * the relay's DTLS role toward the browser ({@link DtlsRole}), has the relay make the IMS leg's SDP, takes the browser-only lines out of it ({@link ImsSdpFilter}) and, for an MO offer with
 * preconditions, writes their status lines ({@link QosPreconditions}). Toward the browser it has the relay make the
 * browser leg's SDP with one BUNDLE group of its own ({@link Bundle}). The relay and the endpoint are functions:
 * sdp/ knows no rtpengine, no endpoint and no call.
 */
public final class BrowserSdp {
    private BrowserSdp() { }

    /** What makes one leg's SDP from the other's (in the gateway: the call's rtpengine offer or answer). */
    @FunctionalInterface
    public interface Relay {
        String relay(String sdp);
    }

    /**
     * The SDP toward IMS: {@code imsSdp} as the relay made it without browser-only lines, with the precondition status
     * lines asked for and the call's data-channel section; {@code mediaSdp}, the relay's alone (no status lines, no
     * data-channel section); {@code browserSdp}, the browser's SDP as the relay got it (an offer's BUNDLE group shapes
     * the answer, {@link Bundle#answerKeepingSingleGroup}); {@code dtlsRole}, the relay's DTLS role toward the browser
     * (RFC 5763 §5); {@code firstAudioCodec}, the browser's first audio codec as its SDP names it (null: none).
     */
    public record ToIms(String imsSdp, String mediaSdp, String browserSdp, String dtlsRole, String firstAudioCodec) { }

    /**
     * The SDP toward the browser: {@code browserSdp} with the call's data-channel section; {@code imsSdp}, the IMS
     * party's SDP as the relay got it (without its data-channel section: later exchanges give it to the relay again).
     */
    public record ToBrowser(String browserSdp, String imsSdp) { }

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
     * {@code qos}'s RFC 3312 status lines ({@link QosPreconditions}; null: none) and {@code dc}'s section; neither the
     * relay nor the endpoint is asked when the offer is refused.
     *
     * @throws Refused when the offer is unreadable or unreachable
     */
    public static ToIms offerToIms(String browserSdp, boolean first, QosPreconditions.Status qos, Relay relay, DataChannelSdp dc) {
        DataChannelSections.Split split = DataChannelSections.split(browserSdp);
        String rest = split == null ? browserSdp : split.rest();
        String codec = firstAudioCodec(rest);
        String shared = first ? Bundle.sharedTransport(rest) : null;
        if (shared != null) throw new Refused(Refused.Kind.UNREADABLE, shared);
        requireUsableAddress(rest);
        String sdp = BrowserOnlyFormats.removed(DtlsSetupDefaults.explicit(rest, true));
        String media = ImsSdpFilter.toIms(relay.relay(sdp));
        String ims = dc.offerToIms(browserSdp, split, qos == null ? media : QosPreconditions.withStatus(media, qos));
        return new ToIms(ims, media, sdp, DtlsRole.answering(sdp), codec);
    }

    /**
     * The browser's answer (to an IMS offer or re-offer) made into the SDP answer toward IMS by {@code relay}, with
     * {@code dc}'s section; the relay's DTLS role is then the opposite of the browser's ({@link DtlsRole#oppositeOf}).
     *
     * @throws Refused when the answer is unreadable or unreachable
     */
    public static ToIms answerToIms(String browserSdp, Relay relay, DataChannelSdp dc) {
        DataChannelSections.Split split = DataChannelSections.split(browserSdp);
        String rest = split == null ? browserSdp : split.rest();
        String codec = firstAudioCodec(rest);
        requireUsableAddress(rest);
        String sdp = DtlsSetupDefaults.explicit(rest, false);
        String media = ImsSdpFilter.toIms(relay.relay(sdp));
        return new ToIms(dc.answerToIms(browserSdp, split, media), media, sdp, DtlsRole.oppositeOf(sdp), codec);
    }

    /**
     * The IMS answer to the browser's offer {@code browserOffer} (as the relay got it: {@link ToIms#browserSdp}) made
     * into the browser's answer by {@code relay}: one BUNDLE group as the offer had ({@link Bundle#answerKeepingSingleGroup}),
     * with {@code dc}'s section.
     */
    public static ToBrowser answerToBrowser(String imsSdp, String browserOffer, Relay relay, DataChannelSdp dc) {
        String media = dc.withoutText(imsSdp);
        DataChannelSections.Split split = DataChannelSections.split(media);
        String rest = split == null ? media : split.rest();
        String answer = Bundle.answerKeepingSingleGroup(browserOffer, relay.relay(rest));
        return new ToBrowser(dc.answerToBrowser(imsSdp, split, answer), rest);
    }

    /**
     * An IMS offer made into the offer to the browser by {@code relay}: a one-m-line BUNDLE group
     * ({@link Bundle#offerWithSingleGroup}), with {@code dc}'s section.
     */
    public static ToBrowser offerToBrowser(String imsSdp, Relay relay, DataChannelSdp dc) {
        String media = dc.withoutText(imsSdp);
        DataChannelSections.Split split = DataChannelSections.split(media);
        String rest = split == null ? media : split.rest();
        String offer = Bundle.offerWithSingleGroup(relay.relay(rest));
        return new ToBrowser(dc.offerToBrowser(imsSdp, split, offer), rest);
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

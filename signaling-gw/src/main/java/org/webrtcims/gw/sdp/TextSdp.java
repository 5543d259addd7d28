package org.webrtcims.gw.sdp;

/**
 * One call's real-time text between a T.140 data channel and RFC 4103 RTP text (issue #25, RFC 8865 §6), the part of
 * the call's {@link DataChannelSdp} that rides on its data-channel section. MO: when the browser's section has a T.140
 * channel (`a=dcmap:<id> …;subprotocol="t140"`, {@link TextSections#t140Channel}), the endpoint's `text-offer` gives
 * the `m=text` section that goes into every offer toward IMS as its last m-line; the IMS answer's `m=text` section is
 * taken out (the relay and the browser never see it) and given to the endpoint once. MT: an IMS offer with `m=text`
 * and no data-channel section gets the browser the endpoint's T.140 channel at `m=text`'s index
 * ({@link DataChannelSdp}), and the answer toward IMS the endpoint's `m=text` at that index.
 * <p>
 * When the endpoint refuses or the IMS side rejects `m=text` (port 0), the call goes on without text: re-offers keep
 * the m-line with port 0 (RFC 3264 §8.2). Text and state only, the endpoint is the call's {@link DataChannelSdp.Endpoint}.
 * Guarded by the call's monitor (through its DataChannelSdp).
 */
final class TextSdp {
    private final DataChannelSdp.Endpoint endpoint;
    /** The `m=text` section toward IMS (null: the call has no text). */
    private String toIms;
    /** MT: the m-line index of `m=text` in the IMS offer, where the answer has it too; -1: the last m-line (MO). */
    private int index = -1;
    /** The endpoint took the IMS side's text (the answer to its text offer, or the IMS offer itself). */
    private boolean answered;
    /** The text ended (refused, rejected, removed): `m=text` stays with port 0. */
    private boolean rejected;

    TextSdp(DataChannelSdp.Endpoint endpoint) { this.endpoint = endpoint; }

    /** Whether {@code imsSdp}, the call's first IMS offer with no data-channel section, brings text (MT). */
    static boolean offersText(String imsSdp) { return TextSections.split(imsSdp) != null; }

    /**
     * MO: the browser's data-channel section, just taken by the endpoint: its T.140 channel (if any) bridged to the
     * `m=text` section toward IMS. True when the call has text and every channel of the section is a T.140 channel:
     * the IMS side then needs no `m=application`.
     */
    boolean offerFromBrowser(String browserSection) {
        Integer channel = TextSections.t140Channel(browserSection);
        if (channel == null) return false;
        String sdp = endpoint.textOffer(channel);
        if (sdp == null) return false;
        try {
            toIms = TextSections.sectionOf(sdp);
        } catch (IllegalArgumentException e) {
            endpoint.dropText(e.getMessage());
            return false;
        }
        return TextSections.onlyT140(browserSection);
    }

    /**
     * MT: a first IMS offer with `m=text` (and no data-channel section): the endpoint's section toward the browser
     * with its T.140 channel (whole SDP), or null when it refused (the answer toward IMS then rejects `m=text`).
     * {@link #index} is then `m=text`'s m-line index, where the browser's offer gets the data-channel section.
     */
    String offerFromIms(String imsSdp) {
        TextSections.Split s = TextSections.split(imsSdp);
        index = TextSections.index(imsSdp);
        answered = true;
        rejected = true;
        toIms = TextSections.rejected(s.section());
        if (s.rejected()) return null;
        DataChannelSdp.Sdps r = endpoint.textOfferFromIms(imsSdp);
        if (r == null) return null;
        try {
            toIms = TextSections.sectionOf(r.ims());
            rejected = false;
            return r.browser();
        } catch (IllegalArgumentException e) {
            endpoint.dropText(e.getMessage());
            return null;
        }
    }

    /** Whether the call has text that no side rejected (the bridge is offered or answered). */
    boolean live() { return toIms != null && !rejected; }

    /** The m-line index of the IMS offer's `m=text` (MT). */
    int index() { return index; }

    /** An SDP from IMS without its `m=text` section when the call has text (the relay must not get it). */
    String withoutText(String imsSdp) {
        if (toIms == null) return imsSdp;
        TextSections.Split s = TextSections.split(imsSdp);
        return s == null ? imsSdp : s.rest();
    }

    /**
     * An IMS answer to an offer with the call's text: its `m=text` section goes to the endpoint on the first answer;
     * a rejected or missing one ends the call's text.
     */
    void answerFromIms(String imsSdp) {
        if (toIms == null || answered) return;
        answered = true;
        TextSections.Split s = TextSections.split(imsSdp);
        if (s == null || s.rejected()) {
            endpoint.dropText(s == null ? "the IMS answer has no m=text section" : "the IMS side rejected m=text (port 0)");
            reject();
        } else if (!endpoint.textAnswer(imsSdp)) {
            reject();
        }
    }

    /** The text goes (the endpoint's session, which carries the bridge, is gone): `m=text` stays with port 0. */
    void reject() {
        if (toIms != null) toIms = TextSections.rejected(toIms);
        rejected = true;
        answered = true;
    }

    /** An SDP toward IMS (an offer, a re-offer, or the answer to an IMS offer) with the call's `m=text` section. */
    String toIms(String imsSdp) {
        if (toIms == null) return imsSdp;
        return index < 0 ? TextSections.append(imsSdp, toIms) : DataChannelSections.merge(imsSdp, toIms, index);
    }
}

package org.webrtcims.gw.sdp;

/**
 * One call's data-channel section between the browser and IMS (issue #25; TS 23.334 §5.20.2, the eIMS-AGW as
 * data-channel endpoint), as {@link BrowserSdp}'s step uses it in each exchange: the SDP's `m=application UDP/DTLS/SCTP
 * webrtc-datachannel` section is taken out before the relay sees the rest (rtpengine has no SCTP: it would only
 * mangle it), given to the data-channel endpoint, and the endpoint's section is put back in at the m-line index it had
 * (RFC 3264 §6). Toward IMS the SDP then says `a=ice-lite` (the endpoint is ICE-lite; rtpengine removes ICE from the
 * audio there); toward the browser it has no BUNDLE group: each m-line keeps its own transport
 * ({@link DataChannelSections#withoutBundle}).
 * <p>
 * The endpoint takes one offer/answer per call: later exchanges keep the sections it gave (same port, ICE credentials
 * and fingerprint, so nothing changes for the channels). When the endpoint refuses or a side rejects the section, the
 * call goes on without data channels: the section is answered with port 0 (and not offered onward), the endpoint's
 * session deleted. Without an endpoint every data-channel section is refused that way. Text and state only: the
 * endpoint is a function of the caller's ({@link Endpoint}). Guarded by the call's monitor.
 * <p>
 * Real-time text rides on the section ({@link TextSdp}, issue #25): a T.140 channel in the browser's section becomes
 * `m=text` toward IMS (with T.140 channels only, the IMS side gets no `m=application`), the IMS answer's `m=text` goes
 * to the endpoint and not to the relay; an IMS offer with `m=text` and no data-channel section gets the browser a T.140
 * channel at `m=text`'s index. The data channels' end (a refusal, a rejection) ends the text too.
 */
public final class DataChannelSdp {
    /** The data-channel endpoint as one call's SDP step needs it (in the gateway: media/DataChannelLegs). */
    public interface Endpoint {
        /** The endpoint's two SDPs for the browser's offer (its whole SDP), or null when it refused (it logs why). */
        Sdps offerFromBrowser(String browserSdp);

        /** The endpoint's two SDPs for an IMS offer (the whole SDP), or null when it refused (it logs why). */
        Sdps offerFromIms(String imsSdp);

        /** The answer to the endpoint's offer (from IMS when {@code fromIms}); false: refused, its session is gone. */
        boolean answer(String sdp, boolean fromIms);

        /** A side rejected the section, or the endpoint's own SDP is unusable: its session goes ({@code why} for the log). */
        void drop(String why);

        /** The endpoint's SDP with the `m=text` section for the browser's T.140 channel {@code channel} (its stream id), after {@link #offerFromBrowser}; null: refused (it logs why). */
        String textOffer(int channel);

        /** The endpoint's SDPs for an IMS offer with `m=text`: a T.140 channel toward the browser, its `m=text` answer toward IMS; null: refused (it logs why). */
        Sdps textOfferFromIms(String imsSdp);

        /** The IMS answer with `m=text` to the endpoint's text offer; false: refused (it logs why), the call goes on without text. */
        boolean textAnswer(String imsSdp);

        /** The call's text ends although its data channels may go on ({@code why} for the log). */
        void dropText(String why);
    }

    /** The endpoint's SDPs of an offer: toward the browser and toward the IMS side (whole SDPs, one m= line each). */
    public record Sdps(String browser, String ims) { }

    private final Endpoint endpoint;
    private final TextSdp text;
    /** The call's first SDP with a data-channel section was seen: the section's m-line index is known. */
    private boolean started;
    private int index;
    /** The endpoint has a session for the call (it took the offer; no side rejected it since). */
    private boolean live;
    /** The endpoint took the answer to its offer. */
    private boolean answered;
    /** The section last given to the browser and to the IMS side (null: none). */
    private String toBrowser;
    private String toIms;

    public DataChannelSdp(Endpoint endpoint) {
        this.endpoint = endpoint;
        this.text = new TextSdp(endpoint);
    }

    /**
     * An SDP from IMS as the relay may get it: without the `m=text` section the call's text takes (the call has text,
     * or this first IMS offer brings text and no data-channel section, {@link #offerToBrowser}).
     */
    String withoutText(String imsSdp) {
        if (!started && DataChannelSections.split(imsSdp) == null && TextSdp.offersText(imsSdp)) {
            return TextSections.split(imsSdp).rest();
        }
        return text.withoutText(imsSdp);
    }

    /** The browser's offer (a call's first, or a re-offer): {@code imsRest}, the relay's offer of the rest, with the endpoint's section. */
    String offerToIms(String browserSdp, DataChannelSections.Split s, String imsRest) {
        if (!started && s != null) {
            start(s);
            if (s.rejected()) toBrowser = DataChannelSections.rejected(s.section());
            else if (!offered(endpoint.offerFromBrowser(browserSdp), null)) toBrowser = DataChannelSections.rejected(s.section());
            else if (text.offerFromBrowser(s.section())) toIms = null;
        }
        return toIms(imsRest);
    }

    /** The IMS answer to the browser's offer: {@code browserRest}, the relay's answer, with the section for the browser. */
    String answerToBrowser(String imsSdp, DataChannelSections.Split s, String browserRest) {
        if (!started) return browserRest;
        text.answerFromIms(imsSdp);
        if (toIms != null) takeAnswer(text.withoutText(imsSdp), s, true); // none offered toward IMS (T.140 only): none to take
        return DataChannelSections.withoutBundle(DataChannelSections.merge(browserRest, toBrowser, index));
    }

    /** An IMS offer (MT, or a re-offer): {@code browserRest}, the relay's offer to the browser, with the endpoint's section. */
    String offerToBrowser(String imsSdp, DataChannelSections.Split s, String browserRest) {
        if (!started && s == null && TextSdp.offersText(imsSdp)) {
            String section = text.offerFromIms(imsSdp);
            started = true;
            index = text.index();
            if (section != null && !offered(new Sdps(section, null), DataChannelSections.freeMid(browserRest))) text.reject();
        } else if (!started && s != null) {
            start(s);
            if (s.rejected()) toIms = DataChannelSections.rejected(s.section());
            else if (!offered(endpoint.offerFromIms(imsSdp), DataChannelSections.freeMid(browserRest))) toIms = DataChannelSections.rejected(s.section());
        }
        if (toBrowser == null) return browserRest;
        String out = DataChannelSections.withoutBundle(DataChannelSections.merge(browserRest, toBrowser, index));
        return live ? DataChannelSections.withSessionIceLite(out) : out;
    }

    /** The browser's answer to an IMS offer: {@code imsRest}, the relay's answer, with the section for IMS. */
    String answerToIms(String browserSdp, DataChannelSections.Split s, String imsRest) {
        if (!started) return imsRest;
        takeAnswer(browserSdp, s, false);
        return toIms(imsRest);
    }

    private void start(DataChannelSections.Split s) {
        started = true;
        index = s.index();
    }

    /** The endpoint's answer to an offer (null: it refused) taken; false when there is none to use. */
    private boolean offered(Sdps r, String browserMid) {
        if (r == null) return false;
        try {
            String browser = DataChannelSections.sectionOf(r.browser(), browserMid);
            String ims = r.ims() == null ? null : DataChannelSections.sectionOf(r.ims(), null);
            toBrowser = browser;
            toIms = ims;
            live = true;
            return true;
        } catch (IllegalArgumentException e) {
            endpoint.drop(e.getMessage());
            return false;
        }
    }

    /** The first answer to the endpoint's offer goes to it; a rejected (or missing) section ends the data channels. */
    private void takeAnswer(String sdp, DataChannelSections.Split s, boolean fromIms) {
        if (!live || answered) return;
        if (s == null || s.rejected()) {
            endpoint.drop((fromIms ? "the IMS side" : "the browser") + " rejected the data-channel section");
            rejectBoth();
        } else if (endpoint.answer(sdp, fromIms)) {
            answered = true;
        } else {
            rejectBoth();
        }
    }

    private void rejectBoth() {
        live = false;
        text.reject();
        if (toBrowser != null) toBrowser = DataChannelSections.rejected(toBrowser);
        if (toIms != null) toIms = DataChannelSections.rejected(toIms);
    }

    private String toIms(String imsRest) {
        if (toIms == null) return text.toIms(imsRest);
        String out = text.toIms(DataChannelSections.merge(imsRest, toIms, index));
        return live ? DataChannelSections.withSessionIceLite(out) : out;
    }
}

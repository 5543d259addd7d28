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
 * and fingerprint, so nothing changes for the channels). That first offer may come mid-call: a re-offer from either
 * side that adds the call's first data-channel section (or, from IMS, `m=text`) starts the endpoint's session as a
 * call's first offer would. A re-offer with the section at port 0 (or, from IMS, `m=text` at port 0 when text is all
 * the call has) removes it (RFC 8841 §10, RFC 3264 §8.2): the session is deleted and both sides get port 0 from then
 * on; a section added again after that is answered with port 0 too. When the endpoint refuses or a side rejects the
 * section, the call goes on without data channels: the section is answered with port 0 (and not offered onward), the
 * endpoint's session deleted. Without an endpoint every data-channel section is refused that way. Text and state
 * only: the endpoint is a function of the caller's ({@link Endpoint}). Guarded by the call's monitor.
 * <p>
 * Real-time text rides on the section ({@link TextSdp}, issue #25): a T.140 channel in the browser's section becomes
 * `m=text` toward IMS (with T.140 channels only, the IMS side gets no `m=application`), the IMS answer's `m=text` goes
 * to the endpoint and not to the relay; an IMS offer with `m=text` and no data-channel section gets the browser a T.140
 * channel at `m=text`'s index; one with both gets the browser one section with the IMS side's channels and the T.140
 * channel. The data channels' end (a refusal, a rejection, a removal) ends the text too.
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
    /**
     * An SDP toward the browser had a BUNDLE group before the call had a data-channel section (an audio call's one-m-line
     * group, {@link Bundle}): the group is established (RFC 8843), so a section added mid-call goes beside it and the
     * group stays (Chrome refuses an answer that removes an m-line from an established group).
     */
    private boolean bundleEstablished;
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
        if (!started && TextSdp.offersText(imsSdp)) {
            DataChannelSections.Split s = DataChannelSections.split(imsSdp);
            if (s == null || !s.rejected()) return TextSections.split(imsSdp).rest();
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
        } else if (live && s != null && s.rejected()) {
            removed("the browser removed the data-channel section (port 0)");
            toBrowser = DataChannelSections.rejected(s.section()); // its own m-line and mid, at port 0
        }
        return toIms(imsRest);
    }

    /** The IMS answer to the browser's offer: {@code browserRest}, the relay's answer, with the section for the browser. */
    String answerToBrowser(String imsSdp, DataChannelSections.Split s, String browserRest) {
        if (!started) return noted(browserRest);
        text.answerFromIms(imsSdp);
        if (toIms != null) takeAnswer(text.withoutText(imsSdp), s, true); // none offered toward IMS (T.140 only): none to take
        return towardBrowser(DataChannelSections.merge(browserRest, toBrowser, index));
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
            String mid = DataChannelSections.freeMid(browserRest);
            if (s.rejected()) toIms = DataChannelSections.rejected(s.section());
            else if (!offered(endpoint.offerFromIms(imsSdp), mid)) toIms = DataChannelSections.rejected(s.section());
            else if (TextSdp.offersText(imsSdp)) withTextFromIms(imsSdp, mid);
        } else if (live) {
            removedByIms(imsSdp, s);
        }
        if (toBrowser == null) return noted(browserRest);
        String out = towardBrowser(DataChannelSections.merge(browserRest, toBrowser, index));
        return live ? IceLiteAttribute.added(out) : out;
    }

    /** The browser's answer to an IMS offer: {@code imsRest}, the relay's answer, with the section for IMS. */
    String answerToIms(String browserSdp, DataChannelSections.Split s, String imsRest) {
        if (!started) return imsRest;
        takeAnswer(browserSdp, s, false);
        return toIms(imsRest);
    }

    /**
     * An IMS offer with both `m=application` and `m=text` (its section just taken by the endpoint): the T.140 channel
     * joins the IMS side's channels in the one section toward the browser; the `m=text` answer goes at its own index.
     * When the endpoint refuses the text, the channels go on and `m=text` is answered with port 0.
     */
    private void withTextFromIms(String imsSdp, String mid) {
        String section = text.offerFromIms(imsSdp);
        if (section == null) return;
        try {
            toBrowser = DataChannelSections.sectionOf(section, mid);
        } catch (IllegalArgumentException e) {
            endpoint.dropText(e.getMessage());
            text.reject();
        }
    }

    /**
     * An IMS re-offer in a call with data channels or text (RFC 8841 §10, RFC 3264 §8.2): a data-channel section with
     * port 0 removes the channels, an `m=text` with port 0 the text; when nothing is left the endpoint's session goes.
     */
    private void removedByIms(String imsSdp, DataChannelSections.Split s) {
        TextSections.Split t = TextSections.split(imsSdp);
        boolean textRemoved = text.live() && t != null && t.rejected();
        if (toIms != null && s != null && s.rejected()) {
            removed("the IMS side removed the data-channel section (port 0)");
        } else if (textRemoved && toIms == null) {
            removed("the IMS side removed m=text (port 0), the call's only data-channel use");
        } else if (textRemoved) {
            text.reject();
            endpoint.dropText("the IMS side removed m=text (port 0)");
        }
    }

    /** The data channels (and text) leave the call mid-call: the endpoint's session goes, both sides get port 0. */
    private void removed(String why) {
        endpoint.drop(why);
        rejectBoth();
    }

    /** An SDP toward the browser without a data-channel section: whether it establishes a BUNDLE group is noted. */
    private String noted(String browserSdp) {
        if (!started && browserSdp.contains("a=group:BUNDLE")) bundleEstablished = true;
        return browserSdp;
    }

    /** An SDP toward the browser with the call's section: no BUNDLE group unless one was established before it. */
    private String towardBrowser(String sdp) {
        return bundleEstablished ? sdp : DataChannelSections.withoutBundle(sdp);
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
        return live ? IceLiteAttribute.added(out) : out;
    }
}

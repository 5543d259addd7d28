package org.webrtcims.gw.call;

import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.sip.SipRequests;
import org.webrtcims.gw.sip.SipHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.sdp.MediaChange;

import javax.sip.ResponseEvent;
import javax.sip.ServerTransaction;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * Offers in an established call (hold/resume, codec or direction changes, ICE restart), RFC 3264 §8:
 * browser `reoffer` → re-INVITE toward IMS → `reanswer`; IMS re-INVITE or UPDATE with SDP → `reoffer`
 * to the browser → its `reanswer` → 200 with the SDP answer. A browser re-offer that leaves the IMS-side
 * SDP unchanged (ICE restart) is answered by rtpengine alone: the IMS leg does not see it.
 */
@Component
public class MidCallOffers implements DialogExtension {
    private static final Logger log = LoggerFactory.getLogger(MidCallOffers.class);

    private final SipRequests requests;
    private final CallReplies replies;
    private final CallTeardown teardown;
    private final CallEventSink sink;
    private final CallTimers timers;
    private final long reanswerTimeoutMs;

    public MidCallOffers(SipRequests requests, CallReplies replies,
                         CallTeardown teardown, CallEventSink sink, CallTimers timers, GatewayProperties props) {
        this.requests = requests;
        this.replies = replies;
        this.teardown = teardown;
        this.sink = sink;
        this.timers = timers;
        this.reanswerTimeoutMs = props.getIms().getReofferTimeoutMs();
    }

    /** The browser's `reoffer`. */
    void fromBrowser(Call c, String browserSdp) {
        synchronized (c) {
            if (c.state() != CallState.CONFIRMED) {
                throw new CallFailure("bad-state", "call " + c.id + " is " + c.state().wire() + ": re-offers need an answered call", c.id);
            }
            if (c.reofferPending()) throw new CallFailure("bad-state", "call " + c.id + " has a re-offer under way", c.id);
            String imsOffer;
            try {
                imsOffer = c.media().bridgeBrowserReoffer(browserSdp);
            } catch (CallFailure f) {
                endIfRelayLost(c, f, "re-offer");
                throw f;
            }
            if (!MediaChange.changes(c.media().imsMediaSdp(), imsOffer)) {
                String answer = c.media().bridgeImsReanswer(c.media().imsRemoteSdp());
                sink.toBrowser(c.owner, CallMessages.of("reanswer", c.id, "sdp", answer, "sipReoffer", false));
                return;
            }
            c.reofferStarted();
            try {
                Request reinvite = c.dialog().request(Request.INVITE);
                reinvite.setHeader(requests.contact(c.dialog().contactUser())); // one Contact (the stack put in a bare one)
                requests.setSdpBody(reinvite, imsOffer);
                c.flow(Request.INVITE);
                c.dialog().send(reinvite, new ReinviteResponses(c, imsOffer));
            } catch (Exception e) {
                c.reofferDone();
                restore(c);
                throw new CallFailure("sip-failed", "cannot send re-INVITE: " + e.getMessage(), c.id);
            }
        }
    }

    /** A re-INVITE, and an UPDATE with SDP in an answered call (RFC 3311): {@link #fromIms}. */
    @Override
    public boolean request(ServerTransaction st, Call c, String offer) {
        String method = st.getRequest().getMethod();
        boolean updateOffer = Request.UPDATE.equals(method) && offer != null && c.state() == CallState.CONFIRMED;
        if (!Request.INVITE.equals(method) && !updateOffer) return false;
        fromIms(st, c, offer);
        return true;
    }

    /** A re-INVITE (offer or offerless) or an UPDATE with SDP from IMS; the caller holds the call's lock. */
    void fromIms(ServerTransaction st, Call c, String imsOffer) {
        Request req = st.getRequest();
        if (c.state() != CallState.CONFIRMED || c.reofferPending()) {
            reply(st, c, Response.REQUEST_PENDING, null); // RFC 3261 §14.2 (glare) and §14.1
            return;
        }
        if (imsOffer == null) {
            // Offerless re-INVITE (e.g. a session refresh): our offer is the unchanged current SDP, and
            // the answer in the ACK is taken as the same media (RFC 6337 §5.3).
            reply(st, c, Response.OK, c.media().imsMediaSdp());
            return;
        }
        if (!MediaChange.changes(c.media().imsRemoteSdp(), imsOffer)) {
            // The same SDP again (a session refresh, RFC 4028 §10, or an UPDATE that changes nothing): the answer
            // is the gateway's current SDP; the browser is not asked (RFC 3264 §8: nothing to negotiate).
            reply(st, c, Response.OK, c.media().lastSdpToIms());
            return;
        }
        String browserOffer;
        try {
            browserOffer = c.media().bridgeImsReoffer(imsOffer);
        } catch (CallFailure f) {
            log.warn("{} re-offer from IMS refused: {}", c.id, f.getMessage());
            reply(st, c, Response.NOT_ACCEPTABLE_HERE, null);
            endIfRelayLost(c, f, "IMS re-offer");
            return;
        }
        c.imsOfferWaiting(st);
        sink.toBrowser(c.owner, CallMessages.of("reoffer", c.id, "sdp", browserOffer, "method", req.getMethod()));
        timers.after(reanswerTimeoutMs, () -> browserSilent(c, st));
    }

    /** The browser's `reanswer` to an IMS re-offer. */
    void fromBrowserAnswer(Call c, String browserSdp) {
        synchronized (c) {
            ServerTransaction st = c.takeImsOffer();
            if (st == null) throw new CallFailure("bad-state", "call " + c.id + " has no re-offer waiting for an answer", c.id);
            String imsAnswer;
            try {
                imsAnswer = c.media().bridgeBrowserReanswer(browserSdp);
            } catch (CallFailure f) {
                reply(st, c, Response.NOT_ACCEPTABLE_HERE, null);
                throw new CallFailure(f.code(), f.getMessage(), c.id);
            }
            reply(st, c, Response.OK, imsAnswer);
        }
    }

    private void browserSilent(Call c, ServerTransaction st) {
        synchronized (c) {
            if (c.pendingImsOffer() != st || c.ended()) return;
            c.takeImsOffer();
            reply(st, c, Response.NOT_ACCEPTABLE_HERE, null);
            sink.toBrowser(c.owner, CallMessages.of("error", c.id, "code", "reoffer-failed",
                    "message", "no reanswer within " + reanswerTimeoutMs + " ms: the IMS re-offer was refused (488)"));
        }
    }

    /**
     * A re-offer refused because the relay lost the call's session (MediaLeg's check before the ng offer, e.g. the
     * page's ICE restart or an IMS re-INVITE after the relay restarted): the call ends `media-lost` now, as the
     * reconciler would end it at its next round (MediaReconciler): BYE toward IMS, `ended` to the browser.
     */
    private void endIfRelayLost(Call c, CallFailure f, String what) {
        if (!MediaLeg.MEDIA_LOST.equals(f.code()) || c.ended()) return;
        log.warn("call {}: {} refused, rtpengine no longer has its session (restarted?); ending it (media-lost)", c.id, what);
        teardown.hangUp(c, MediaLeg.MEDIA_LOST);
    }

    private void reply(ServerTransaction st, Call c, int code, String sdp) {
        replies.send(c, st, code, null, code < 300, sdp);
    }

    /** rtpengine holds the browser's unanswered re-offer: answer it with the IMS party's current SDP. */
    private void restore(Call c) {
        try {
            c.media().bridgeImsReanswer(c.media().imsRemoteSdp());
        } catch (CallFailure f) {
            log.warn("{}: rtpengine state not restored after a failed re-offer: {}", c.id, f.getMessage());
        }
    }

    private final class ReinviteResponses extends CallResponses {
        private final String imsOffer;

        ReinviteResponses(Call c, String imsOffer) {
            super(c, sink);
            this.imsOffer = imsOffer;
        }

        @Override
        void response(ResponseEvent event, Response r, int code) {
            if (code < 200) return;
            c.reofferDone();
            if (code < 300) {
                c.ack(r, "the re-INVITE");
                if (!c.ended()) answered(SipHeaders.sdp(r));
                return;
            }
            if (c.ended()) return;
            // RFC 5057 §5.1/§5.2: 481 and 408 end the dialog; other failures leave the session as it was.
            if (code == Response.CALL_OR_TRANSACTION_DOES_NOT_EXIST || code == Response.REQUEST_TIMEOUT) {
                teardown.hangUp(c, r.getReasonPhrase() == null ? "rejected" : r.getReasonPhrase().toLowerCase());
                return;
            }
            restore(c);
            sink.toBrowser(c.owner, CallMessages.of("error", c.id, "code", "reoffer-failed", "sipCode", code,
                    "message", "the IMS side refused the re-offer: " + code + " " + r.getReasonPhrase()));
        }

        private void answered(String imsAnswer) {
            if (imsAnswer == null) {
                restore(c);
                sink.toBrowser(c.owner, CallMessages.of("error", c.id, "code", "reoffer-failed", "sipCode", Response.OK,
                        "message", "the 200 OK to the re-INVITE carried no SDP answer"));
                return;
            }
            try {
                String browserAnswer = c.media().bridgeImsReanswer(imsAnswer);
                c.media().reofferTaken(imsOffer);
                sink.toBrowser(c.owner, CallMessages.of("reanswer", c.id, "sdp", browserAnswer, "sipReoffer", true));
            } catch (CallFailure f) {
                sink.toBrowser(c.owner, CallMessages.of("error", c.id, "code", f.code(), "message", f.getMessage()));
                teardown.hangUp(c, f.code());
            }
        }

        @Override
        void timeout() {
            c.reofferDone();
            teardown.hangUp(c, "timeout");
        }
    }
}

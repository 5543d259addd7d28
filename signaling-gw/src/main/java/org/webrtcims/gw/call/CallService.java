package org.webrtcims.gw.call;

import org.springframework.stereotype.Service;
import org.webrtcims.gw.media.ImsCodec;
import org.webrtcims.gw.media.MediaStats;
import org.webrtcims.gw.sdp.SdpInspector;

import java.util.LinkedHashMap;
import java.util.Map;

/** What the browser API may do with calls; checks ownership and input before touching SIP or media. */
@Service
public class CallService {
    private final OutgoingCalls outgoing;
    private final IncomingCalls incoming;
    private final CallTeardown teardown;
    private final CallRegistry registry;
    private final CallMedia media;
    private final MidCallOffers midCall;
    private final Dtmf dtmf;
    private final MediaReconciler reconciler;

    public CallService(OutgoingCalls outgoing, IncomingCalls incoming, CallTeardown teardown,
                       CallRegistry registry, CallMedia media, MidCallOffers midCall, Dtmf dtmf, MediaReconciler reconciler) {
        this.reconciler = reconciler;
        this.outgoing = outgoing;
        this.incoming = incoming;
        this.teardown = teardown;
        this.registry = registry;
        this.media = media;
        this.midCall = midCall;
        this.dtmf = dtmf;
    }

    /**
     * imsCodec: null = pass-through, else one of {@link ImsCodec} (case-insensitive) forced on the IMS leg.
     * injectDtmf: the call takes WebSocket `dtmf` (`dtmf: "inject"`; rtpengine then decodes and re-encodes the
     * browser's audio); a transcoded call takes it anyway. identity: the registered public user identity to call as
     * (null = the default one; another one is refused with `bad-identity`).
     */
    public String call(String token, String user, String to, String sdp, String imsCodec, boolean injectDtmf, String identity) {
        if (to == null || to.isBlank()) throw new CallFailure("bad-message", "'to' is required");
        ImsCodec forced = null;
        if (imsCodec != null) {
            try {
                forced = ImsCodec.parse(imsCodec);
            } catch (IllegalArgumentException e) {
                throw new CallFailure("bad-message", e.getMessage());
            }
        }
        registry.admitSdp(sdp);
        registry.admit(token);
        return outgoing.place(token, user, to, sdp, forced, injectDtmf, identity).id; // the SDP is read once, by the call's media leg
    }

    public void answer(String token, String callId, String sdp) {
        answer(token, callId, sdp, false);
    }

    /**
     * The browser accepts an incoming call; the SDP may be left out when it was given with `media`.
     * injectDtmf: as for {@link #call}.
     */
    public void answer(String token, String callId, String sdp, boolean injectDtmf) {
        Call c = owned(token, callId);
        SdpInspector.Summary s = sdp == null ? null : inspect(sdp);
        incoming.answer(c, sdp, injectDtmf, s == null ? null : s.firstAudioCodec());
    }

    /** MT with preconditions: the browser's SDP answer before it accepts the call. */
    public void earlyMedia(String token, String callId, String sdp, boolean injectDtmf) {
        Call c = owned(token, callId);
        SdpInspector.Summary s = inspect(sdp);
        incoming.earlyMedia(c, sdp, injectDtmf, s.firstAudioCodec());
    }

    /** A new offer from the browser in an answered call (hold/resume, ICE restart, ...). */
    public void reoffer(String token, String callId, String sdp) {
        Call c = owned(token, callId);
        inspect(sdp);
        midCall.fromBrowser(c, sdp);
    }

    /** The browser's answer to a `reoffer` the gateway sent it. */
    public void reanswer(String token, String callId, String sdp) {
        Call c = owned(token, callId);
        inspect(sdp);
        midCall.fromBrowserAnswer(c, sdp);
    }

    /**
     * The browser's `dtmf`: the digits go to the IMS party as RFC 4733 events (in-band tones when it did not
     * negotiate telephone-event). Only once media flows both ways: answered, or early media from a 183; and only
     * on a call that takes it (placed/answered with `dtmf: "inject"`, or transcoded), else `dtmf-unavailable`.
     */
    public void dtmf(String token, String callId, String digits, Integer durationMs) {
        DtmfRequest req = DtmfRequest.of(digits, durationMs);
        dtmf.fromBrowser(owned(token, callId), req);
    }

    /**
     * The browser's `media-report`, the answer to a `media-check`: the RTP packets it received so far on the call
     * (a call restored by a relay that came back is judged by it; MediaReconciler). Outside a check it is ignored.
     */
    public void mediaReport(String token, String callId, long packetsReceived) {
        if (packetsReceived < 0) throw new CallFailure("bad-message", "'packetsReceived' must be 0 or more");
        reconciler.browserReport(owned(token, callId), packetsReceived);
    }

    public void hangup(String token, String callId) {
        teardown.hangUp(owned(token, callId), "local-hangup");
    }

    /** Ends every call of a browser session (logout, WebSocket closed). */
    public void endAll(String token, String reason) {
        registry.ofSession(token).forEach(c -> teardown.hangUp(c, reason));
    }

    /** The call as GET /api/v1/calls/{id} shows it. */
    public Map<String, Object> info(String token, String callId) {
        Call c = owned(token, callId);
        if (c.ended()) media.awaitRelease(c);
        MediaStats live = c.ended() ? null : media.stats(c);
        org.webrtcims.gw.media.DataChannelStats dcs = media.dataChannelStats(c);
        synchronized (c) {
            MediaStats m = live != null ? live : c.media().finalStats();
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("callId", c.id);
            out.put("direction", c.direction.wire());
            out.put("from", c.from());
            out.put("to", c.to());
            out.put("state", c.state().wire());
            out.put("sipFinal", c.sipFinal());
            out.put("setupMs", c.setupMs());
            out.put("endReason", c.endReason());
            out.put("sipFlow", c.sipFlow());
            out.put("failedRequests", c.failedRequests());
            out.put("preconditions", c.qos().on());
            out.put("transitions", c.transitions().stream().map(CallService::transition).toList());
            Map<String, Object> mm = new LinkedHashMap<>();
            mm.put("codecBrowser", m != null && m.codecBrowser() != null ? m.codecBrowser() : c.media().codecBrowser());
            mm.put("codecIms", m != null ? m.codecIms() : null);
            mm.put("packetsToIms", m != null ? m.packetsToIms() : 0);
            mm.put("packetsToBrowser", m != null ? m.packetsToBrowser() : 0);
            mm.put("bytesToIms", m != null ? m.bytesToIms() : 0);
            mm.put("bytesToBrowser", m != null ? m.bytesToBrowser() : 0);
            // rtpengine's verdict (query): false = pure relaying; null before rtpengine could be asked
            mm.put("transcoded", m != null ? m.transcoded() : null);
            mm.put("dtmf", c.media().injectDtmf() ? "inject" : "relay");
            if (m != null && m.video() != null) {
                MediaStats.Video v = m.video();
                Map<String, Object> vm = new LinkedHashMap<>();
                vm.put("codecBrowser", v.codecBrowser());
                vm.put("codecIms", v.codecIms());
                vm.put("packetsToIms", v.packetsToIms());
                vm.put("packetsToBrowser", v.packetsToBrowser());
                mm.put("video", vm);
            }
            out.put("media", mm);
            if (dcs != null) out.put("dataChannels", dcs.toMap());
            return out;
        }
    }

    /** One recorded state change as the call info shows it: {atMillis, from, to}. */
    private static Map<String, Object> transition(Call.Transition t) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("atMillis", t.atMillis());
        out.put("from", t.from().wire());
        out.put("to", t.to().wire());
        return out;
    }

    private Call owned(String token, String callId) {
        return registry.find(callId).filter(c -> c.owner.equals(token))
                .orElseThrow(() -> new CallFailure("unknown-call", "no call '" + callId + "' in this session"));
    }

    /** Parses a browser SDP (bad-sdp) and checks its m-line and candidate quotas, before rtpengine sees it. */
    private SdpInspector.Summary inspect(String sdp) {
        registry.admitSdp(sdp);
        try {
            return SdpInspector.inspect(sdp);
        } catch (IllegalArgumentException e) {
            throw new CallFailure("bad-sdp", e.getMessage());
        }
    }
}

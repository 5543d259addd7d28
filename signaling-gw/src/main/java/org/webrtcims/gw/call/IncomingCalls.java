package org.webrtcims.gw.call;

import org.webrtcims.gw.sip.SipUserAgent;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.sip.ContactUsers;
import org.webrtcims.gw.sip.SipHeaders;

import javax.sip.RequestEvent;
import javax.sip.ServerTransaction;
import javax.sip.address.SipURI;
import javax.sip.address.URI;
import javax.sip.header.FromHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.util.Optional;

/**
 * New calls from the IMS side toward browsers (MT): the INVITE, the browser's early answer (with preconditions)
 * and its accept. The in-dialog requests that follow are {@link DialogRequests}'; what the dialog's extensions do when
 * the browser answers (DTMF injection; preconditions: the reliable 183, UPDATE, alerting once both segments are met)
 * goes through {@link DialogExtensions}.
 */
@Component
public class IncomingCalls {
    private final SipUserAgent ua;
    private final CallMedia media;
    private final CallEventSink sink;
    private final CallRegistry registry;
    private final UserDirectory users;
    private final ContactUsers contactUsers;
    /** The SIP stack's in-dialog send for each call, made once (no lambda linked at a call: docs/architecture.md "Starting the gateway"). */
    private final InDialogSender inDialog;
    private final InviteServer inviteServer;
    private final DialogExtensions extensions;

    /** Refusals before a call exists go through {@code inviteServer}, the session timer's 422 through {@code extensions}. */
    public IncomingCalls(SipUserAgent ua, CallMedia media, CallEventSink sink, CallRegistry registry, UserDirectory users,
                         ContactUsers contactUsers, InviteServer inviteServer, DialogExtensions extensions) {
        this.extensions = extensions;
        this.contactUsers = contactUsers;
        this.ua = ua;
        this.media = media;
        this.sink = sink;
        this.registry = registry;
        this.users = users;
        this.inviteServer = inviteServer;
        this.inDialog = ua::sendInDialog;
    }

    /** An INVITE that starts a call: 100, then `incoming` to the browser (and 180 without preconditions). */
    void invite(RequestEvent event, String callId) throws Exception {
        Request req = event.getRequest();
        ServerTransaction st = ua.serverTransaction(event);
        st.sendResponse(ua.response(Response.TRYING, req));
        URI ruri = req.getRequestURI();
        // the Request-URI is the registered Contact (the P-CSCF routed to it): its user part is the registration's
        // random one (ContactUsers), mapped back to the login; any other user part (a guessed login name, an old
        // registration's) gets the same answer as a user who is not logged in (docs/security.md "SIP sources")
        String contactUser = ruri instanceof SipURI s ? s.getUser() : null;
        String user = contactUsers.loginOf(contactUser).orElse(null);
        Optional<String> session = user == null ? Optional.empty() : users.sessionOf(user);
        if (session.isEmpty()) {
            inviteServer.refuse(st, Response.TEMPORARILY_UNAVAILABLE);
            return;
        }
        // null: an offerless (delayed-offer) INVITE: the browser makes the offer, the 200 carries it toward IMS and
        // the ACK the answer (RFC 3261 §13.2.1; docs/call-flows.md "Offerless INVITE")
        String offer = SipHeaders.sdp(req);
        if (extensions.refusesInvite(st)) return; // RFC 4028 §9: 422 when the interval asked is under the gateway's Min-SE
        try { // quotas before rtpengine: 486 for a busy user, 503 for a full gateway, 488 for an oversized SDP
            registry.admit(session.get());
            if (offer != null) registry.admitSdp(offer);
        } catch (CallFailure f) {
            int code = switch (f.code()) {
                case "too-many-calls" -> Response.BUSY_HERE;
                case "gateway-busy" -> Response.SERVICE_UNAVAILABLE;
                default -> Response.NOT_ACCEPTABLE_HERE;
            };
            inviteServer.refuse(st, code);
            return;
        }
        FromHeader from = (FromHeader) req.getHeader(FromHeader.NAME);
        // a tel: (or any non-SIP) From is shown as its URI: the caller needs no SIP user part
        // a SIP From without a user part (sip:ims.lab, an anonymous caller) is shown as its host
        String remote = from.getAddress().getURI() instanceof SipURI fromUri
                ? (fromUri.getUser() == null ? fromUri.getHost() : fromUri.getUser() + "@" + fromUri.getHost())
                : from.getAddress().getURI().toString();
        Call c = new Call(callId, Direction.MT, session.get(), user, remote,
                from.getTag(), CallState.INCOMING, media, inDialog);
        synchronized (c) {
            c.dialog().invitedBy(st, SipUserAgent.newTag(), contactUser);
            c.flow(Request.INVITE);
            c.flow(String.valueOf(Response.TRYING));
            registry.add(c);
            extensions.invited(c, req, offer); // the session timer agreed, whether preconditions are used
            c.dialog().dialogOfInvite();
            if (offer == null) {
                c.markOfferless();
                sink.toBrowser(c.owner, CallMessages.of("incoming", c.id, "from", c.remote, "to", user, "sdp", null,
                        "preconditions", false, "offerless", true, "assertedIdentity", assertedIdentity(req)));
                inviteServer.ring(c);
                return;
            }
            String browserSdp;
            try {
                browserSdp = c.media().bridgeImsOffer(offer);
            } catch (CallFailure f) {
                // rtpengine down (its breaker open): 503, the IMS may try elsewhere; else the SDP was the problem
                int code = media.unavailable() ? Response.SERVICE_UNAVAILABLE : Response.NOT_ACCEPTABLE_HERE;
                inviteServer.reject(c, code, f.code());
                return;
            }
            // With preconditions the browser answers the SDP at once (`media`) but rings only on `alerting`.
            sink.toBrowser(c.owner, CallMessages.of("incoming", c.id, "from", c.remote, "to", user, "sdp", browserSdp,
                    "preconditions", c.qos().on(), "assertedIdentity", assertedIdentity(req)));
            if (!c.qos().on()) inviteServer.ring(c);
        }
    }

    /**
     * The identities the network asserted for the caller (P-Asserted-Identity, TS 24.229 §5.1.2A.1.1 / RFC 3325: a
     * SIP URI and/or a tel URI), as URIs in their order; empty when the INVITE had none.
     */
    static java.util.List<String> assertedIdentity(Request req) {
        java.util.List<String> out = new java.util.ArrayList<>();
        java.util.ListIterator<?> it = req.getHeaders("P-Asserted-Identity");
        while (it != null && it.hasNext()) {
            String v = String.valueOf(it.next()).trim();
            v = v.substring(v.indexOf(':') + 1).trim();
            for (String part : v.split(",")) {
                String p = part.trim();
                int lt = p.indexOf('<');
                int gt = p.indexOf('>');
                if (lt >= 0 && gt > lt) p = p.substring(lt + 1, gt);
                if (!p.isEmpty()) out.add(p);
            }
        }
        return out;
    }

    void earlyMedia(Call c, String browserSdp) {
        earlyMedia(c, browserSdp, false, null);
    }

    /**
     * The browser's SDP answer given before it accepts (preconditions): reliable 183 toward IMS. injectDtmf: the
     * browser asked for WebSocket `dtmf` on this call (`dtmf: "inject"`). browserCodec: the SDP's first audio codec.
     */
    void earlyMedia(Call c, String browserSdp, boolean injectDtmf, String browserCodec) {
        synchronized (c) {
            if (!c.qos().on() || c.state() != CallState.INCOMING || c.media().imsSdp() != null) {
                throw new CallFailure("bad-message", "call " + c.id + " takes no early media answer now");
            }
            extensions.browserAnswering(c, injectDtmf); // DTMF injection before rtpengine's answer
            extensions.earlyAnswer(c, answerMedia(c, browserSdp)); // preconditions: the reliable 183
            if (browserCodec != null) c.media().browserCodec(browserCodec);
        }
    }

    /** rtpengine answer from the browser's SDP; on failure the INVITE is rejected and the call ends. */
    private String answerMedia(Call c, String browserSdp) {
        try {
            return c.media().bridgeBrowserAnswer(browserSdp);
        } catch (CallFailure f) {
            inviteServer.reject(c, mediaFailure(), f.code());
            throw f;
        }
    }

    void answer(Call c, String browserSdp) {
        answer(c, browserSdp, false, null);
    }

    /**
     * The status for an MT INVITE whose media rtpengine could not set up from the browser's answer: 503 while
     * rtpengine is down (the IMS may try elsewhere), else 500 — the gateway's side failed, not the caller's request.
     */
    private int mediaFailure() {
        return media.unavailable() ? Response.SERVICE_UNAVAILABLE : Response.SERVER_INTERNAL_ERROR;
    }

    /**
     * The browser accepts: 200 OK now, or (preconditions) once both QoS segments are met. injectDtmf: as for
     * {@link #earlyMedia}; too late when the SDP answer already went out as `media` without it. browserCodec: the
     * SDP's first audio codec (null: no SDP), kept unless `media` gave one.
     */
    void answer(Call c, String browserSdp, boolean injectDtmf, String browserCodec) {
        synchronized (c) {
            accept(c, browserSdp, injectDtmf);
            if (browserCodec != null) c.media().browserCodecIfUnknown(browserCodec);
        }
    }

    private void accept(Call c, String browserSdp, boolean injectDtmf) {
        synchronized (c) {
            if (c.state() != CallState.INCOMING || c.accepted()) throw new CallFailure("bad-message", "call " + c.id + " is not ringing");
            if (c.qos().on()) {
                if (c.media().imsSdp() == null) {
                    if (browserSdp == null) throw new CallFailure("bad-sdp", "the answer needs an SDP");
                    earlyMedia(c, browserSdp, injectDtmf, null);
                } else if (injectDtmf && !c.media().injectDtmf()) {
                    throw new CallFailure("bad-message", "call " + c.id + ": the SDP answer went out with `media`;"
                            + " ask for dtmf \"inject\" there", c.id);
                }
                extensions.accepted(c); // preconditions: the 200 once both segments are met
                return;
            }
            if (browserSdp == null) throw new CallFailure("bad-sdp", "the answer needs an SDP");
            if (c.offerless()) { // the browser's SDP is an offer: rtpengine's IMS side of it goes in the 200
                extensions.browserAnswering(c, injectDtmf);
                String imsOffer;
                try {
                    imsOffer = c.media().bridgeBrowserOffer(browserSdp, null); // the gateway offers no preconditions in an MT 200
                } catch (CallFailure f) {
                    inviteServer.reject(c, mediaFailure(), f.code());
                    throw f;
                }
                c.accept();
                inviteServer.ok(c, imsOffer);
                return;
            }
            extensions.browserAnswering(c, injectDtmf);
            c.accept();
            inviteServer.ok(c, answerMedia(c, browserSdp));
        }
    }
}

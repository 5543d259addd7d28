package org.webrtcims.gw.call;

import org.webrtcims.gw.sip.SipHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.sdp.QosPreconditions;
import org.webrtcims.gw.sip.InboundRequestHandler;
import org.webrtcims.gw.sip.SipIds;
import org.webrtcims.gw.sip.SipRequests;
import org.webrtcims.gw.sip.SipUserAgent;

import javax.sip.RequestEvent;
import javax.sip.ServerTransaction;
import javax.sip.TransactionAlreadyExistsException;
import javax.sip.address.SipURI;
import javax.sip.address.URI;
import javax.sip.header.CSeqHeader;
import javax.sip.header.CallIdHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.ToHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.util.Optional;

/**
 * Requests from the IMS side: new calls toward browsers (plain, or with RFC 3312 preconditions:
 * reliable 183, PRACK, UPDATE, alerting only once both segments are met), and ACK/BYE/CANCEL/PRACK/UPDATE
 * of existing calls.
 */
@Component
public class IncomingCalls implements InboundRequestHandler {
    private static final Logger log = LoggerFactory.getLogger(IncomingCalls.class);
    private static final int PRECONDITION_FAILURE = 580;

    private final SipUserAgent ua;
    private final SipRequests requests;
    private final CallMedia media;
    private final CallTeardown teardown;
    private final CallEventSink sink;
    private final CallRegistry registry;
    private final UserDirectory users;
    private final LocalMediaWatch watch;
    private final MidCallOffers midCall;
    private final boolean preconditions;

    public IncomingCalls(SipUserAgent ua, SipRequests requests, CallMedia media, CallTeardown teardown,
                         CallEventSink sink, CallRegistry registry, UserDirectory users, LocalMediaWatch watch,
                         MidCallOffers midCall, GatewayProperties props) {
        this.ua = ua;
        this.requests = requests;
        this.media = media;
        this.teardown = teardown;
        this.sink = sink;
        this.registry = registry;
        this.users = users;
        this.watch = watch;
        this.midCall = midCall;
        this.preconditions = props.getIms().isPreconditions();
        ua.setInboundHandler(this);
    }

    @Override
    public void onRequest(RequestEvent event) {
        Request req = event.getRequest();
        String callId = ((CallIdHeader) req.getHeader(CallIdHeader.NAME)).getCallId();
        Optional<Call> call = registry.find(callId);
        try {
            switch (req.getMethod()) {
                case Request.INVITE -> {
                    if (call.isPresent()) reinvite(event, call.get());
                    else invite(event, callId);
                }
                case Request.ACK -> call.ifPresent(c -> ack(c, ((CSeqHeader) req.getHeader(CSeqHeader.NAME)).getSeqNumber()));
                case Request.BYE, Request.CANCEL, Request.PRACK, Request.UPDATE -> inDialog(event, call);
                default -> reply(event, Response.NOT_IMPLEMENTED);
            }
        } catch (TransactionAlreadyExistsException e) {
            log.debug("retransmitted {} absorbed", req.getMethod());
        } catch (Exception e) {
            log.warn("{} {} failed: {}", req.getMethod(), callId, e.toString());
        }
    }

    private void reinvite(RequestEvent event, Call c) throws Exception {
        ServerTransaction st = ua.serverTransaction(event);
        synchronized (c) {
            c.flow(Request.INVITE);
            midCall.fromIms(st, c, SipHeaders.sdp(event.getRequest()));
        }
    }

    private void reply(RequestEvent event, int code) throws Exception {
        ServerTransaction st = ua.serverTransaction(event);
        Response r = ua.response(code, event.getRequest());
        if (code >= 200 && r.getHeader(ToHeader.NAME) instanceof ToHeader to && to.getTag() == null) to.setTag(SipIds.tag());
        st.sendResponse(r);
    }

    private void invite(RequestEvent event, String callId) throws Exception {
        Request req = event.getRequest();
        ServerTransaction st = ua.serverTransaction(event);
        st.sendResponse(ua.response(Response.TRYING, req));
        URI ruri = req.getRequestURI();
        String user = ruri instanceof SipURI s ? s.getUser() : null;
        Optional<String> session = user == null ? Optional.empty() : users.sessionOf(user);
        if (session.isEmpty()) {
            respond(st, req, Response.TEMPORARILY_UNAVAILABLE, SipIds.tag());
            return;
        }
        String offer = SipHeaders.sdp(req);
        if (offer == null) {
            respond(st, req, Response.NOT_ACCEPTABLE_HERE, SipIds.tag()); // offerless INVITE: see docs/call-flows.md
            return;
        }
        FromHeader from = (FromHeader) req.getHeader(FromHeader.NAME);
        SipURI fromUri = (SipURI) from.getAddress().getURI();
        Call c = new Call(callId, Direction.MT, session.get(), user, fromUri.getUser() + "@" + fromUri.getHost(),
                from.getTag(), CallState.INCOMING);
        c.toTag = SipIds.tag();
        c.inviteServerTx = st;
        synchronized (c) {
            c.flow(Request.INVITE);
            c.flow(String.valueOf(Response.TRYING));
            registry.add(c);
            c.qos = preconditions && QosPreconditions.present(offer)
                    && SipHeaders.supportsOrRequires(req, "precondition") && SipHeaders.supportsOrRequires(req, "100rel");
            c.remoteQos = QosPreconditions.peerLocalStatus(offer);
            c.dialog = st.getDialog();
            String browserSdp;
            try {
                browserSdp = media.offerFromIms(c, offer);
            } catch (CallFailure f) {
                teardown.rejectInvite(c, Response.NOT_ACCEPTABLE_HERE);
                teardown.finish(c, f.code(), c.sipFinal);
                return;
            }
            // With preconditions the browser answers the SDP at once (`media`) but rings only on `alerting`.
            sink.toBrowser(c.owner, CallMessages.of("incoming", c.id, "from", c.remote, "to", user, "sdp", browserSdp,
                    "preconditions", c.qos));
            if (!c.qos) sendRinging(c);
        }
    }

    private void sendRinging(Call c) {
        try {
            Response ringing = ua.response(Response.RINGING, c.inviteServerTx.getRequest());
            ((ToHeader) ringing.getHeader(ToHeader.NAME)).setTag(c.toTag);
            ringing.addHeader(requests.contact(c.localUser));
            c.inviteServerTx.sendResponse(ringing);
            if (c.dialog == null) c.dialog = c.inviteServerTx.getDialog();
            c.flow(String.valueOf(Response.RINGING));
        } catch (Exception e) {
            log.warn("180 for {} not sent: {}", c.id, e.toString());
        }
    }

    private void respond(ServerTransaction st, Request req, int code, String toTag) throws Exception {
        Response r = ua.response(code, req);
        ((ToHeader) r.getHeader(ToHeader.NAME)).setTag(toTag);
        st.sendResponse(r);
    }

    /** The browser's SDP answer given before it accepts (preconditions): reliable 183 toward IMS. */
    void earlyMedia(Call c, String browserSdp) {
        synchronized (c) {
            if (!c.qos || c.state != CallState.INCOMING || c.imsSdp != null) {
                throw new CallFailure("bad-message", "call " + c.id + " takes no early media answer now");
            }
            String imsAnswer = answerMedia(c, browserSdp);
            c.imsSdp = QosPreconditions.withStatus(imsAnswer,
                    new QosPreconditions.Status("none", c.remoteQos, "mandatory", true));
            try {
                Response progress = c.dialog.createReliableProvisionalResponse(Response.SESSION_PROGRESS);
                if (progress.getHeader(ToHeader.NAME) instanceof ToHeader to && to.getTag() == null) to.setTag(c.toTag);
                c.toTag = ((ToHeader) progress.getHeader(ToHeader.NAME)).getTag();
                progress.addHeader(requests.contact(c.localUser));
                requests.setSdpBody(progress, c.imsSdp);
                c.dialog.sendReliableProvisionalResponse(progress);
                c.flow(String.valueOf(Response.SESSION_PROGRESS));
            } catch (Exception e) {
                teardown.rejectInvite(c, Response.SERVER_INTERNAL_ERROR);
                teardown.finish(c, "sip-failed", c.sipFinal);
                throw new CallFailure("sip-failed", "cannot send reliable 183: " + e.getMessage());
            }
            watch.start(c, () -> localQosMet(c), () -> qosTimedOut(c));
        }
    }

    /** rtpengine answer from the browser's SDP; on failure the INVITE is rejected and the call ends. */
    private String answerMedia(Call c, String browserSdp) {
        try {
            return media.answerFromBrowser(c, browserSdp);
        } catch (CallFailure f) {
            teardown.rejectInvite(c, Response.SERVER_INTERNAL_ERROR);
            teardown.finish(c, f.code(), c.sipFinal);
            throw f;
        }
    }

    /** The browser accepts: 200 OK now, or (preconditions) once both QoS segments are met. */
    void answer(Call c, String browserSdp) {
        synchronized (c) {
            if (c.state != CallState.INCOMING || c.accepted) throw new CallFailure("bad-message", "call " + c.id + " is not ringing");
            if (c.qos) {
                if (c.imsSdp == null) {
                    if (browserSdp == null) throw new CallFailure("bad-sdp", "the answer needs an SDP");
                    earlyMedia(c, browserSdp);
                }
                c.accepted = true;
                if (c.alerted) sendOk(c, null);
                return;
            }
            if (browserSdp == null) throw new CallFailure("bad-sdp", "the answer needs an SDP");
            c.accepted = true;
            sendOk(c, answerMedia(c, browserSdp));
        }
    }

    private void sendOk(Call c, String imsSdp) {
        try {
            Response ok = ua.response(Response.OK, c.inviteServerTx.getRequest());
            ((ToHeader) ok.getHeader(ToHeader.NAME)).setTag(c.toTag);
            ok.addHeader(requests.contact(c.localUser));
            if (imsSdp != null) requests.setSdpBody(ok, imsSdp);
            c.inviteServerTx.sendResponse(ok);
            c.dialog = c.inviteServerTx.getDialog();
            c.flow(String.valueOf(Response.OK));
            c.sipFinal = Response.OK;
            c.state = CallState.ANSWERING;
        } catch (Exception e) {
            teardown.finish(c, "sip-failed", null);
            throw new CallFailure("sip-failed", "cannot send 200 OK: " + e.getMessage());
        }
    }

    private void localQosMet(Call c) {
        synchronized (c) {
            if (c.ended()) return;
            c.localQosMet = true;
            if (c.pendingUpdate != null) answerUpdate(c, c.pendingUpdate);
            alertWhenMet(c);
        }
    }

    private void qosTimedOut(Call c) {
        synchronized (c) {
            if (c.ended() || c.alerted) return;
            if (c.pendingUpdate != null) answerUpdate(c, c.pendingUpdate);
            teardown.rejectInvite(c, PRECONDITION_FAILURE);
            teardown.finish(c, "preconditions-failed", PRECONDITION_FAILURE);
        }
    }

    /** Both segments met: ring (180) and alert the browser; answer at once if it already accepted. */
    private void alertWhenMet(Call c) {
        if (c.alerted || c.state != CallState.INCOMING || !c.localQosMet || !"sendrecv".equals(c.remoteQos)) return;
        c.alerted = true;
        sendRinging(c);
        sink.toBrowser(c.owner, CallMessages.of("alerting", c.id));
        if (c.accepted) sendOk(c, null);
    }

    /** BYE, CANCEL, PRACK or UPDATE of a known call, under its lock; 481 when the call is unknown. */
    private void inDialog(RequestEvent event, Optional<Call> call) throws Exception {
        String method = event.getRequest().getMethod();
        if (call.isEmpty() || (method.equals(Request.CANCEL) && call.get().direction() != Direction.MT)) {
            reply(event, Response.CALL_OR_TRANSACTION_DOES_NOT_EXIST);
            return;
        }
        Call c = call.get();
        synchronized (c) {
            c.flow(method);
            switch (method) {
                case Request.BYE -> {
                    ok(event, c);
                    teardown.finish(c, "remote-hangup", c.sipFinal);
                }
                case Request.CANCEL -> {
                    ok(event, c);
                    if (c.state == CallState.INCOMING) {
                        teardown.rejectInvite(c, Response.REQUEST_TERMINATED);
                        teardown.finish(c, "remote-cancel", Response.REQUEST_TERMINATED);
                    }
                }
                case Request.PRACK -> ok(event, c);
                default -> update(event, c);
            }
        }
    }

    private void ok(RequestEvent event, Call c) throws Exception {
        ua.serverTransaction(event).sendResponse(ua.response(Response.OK, event.getRequest()));
        c.flow(String.valueOf(Response.OK));
    }

    /** UPDATE from the IMS side: its QoS status (preconditions); answered with ours once we know it. */
    private void update(RequestEvent event, Call c) throws Exception {
        String offer = SipHeaders.sdp(event.getRequest());
        ServerTransaction st = ua.serverTransaction(event);
        if (offer != null && c.state == CallState.CONFIRMED) {
            midCall.fromIms(st, c, offer); // RFC 3311: a mid-call offer, e.g. hold
            return;
        }
        if (!c.qos || offer == null || c.imsSdp == null) {
            int code = offer == null ? Response.OK : Response.NOT_ACCEPTABLE_HERE; // mid-call offers: not yet
            st.sendResponse(ua.response(code, event.getRequest()));
            c.flow(String.valueOf(code));
            return;
        }
        c.remoteQos = QosPreconditions.peerLocalStatus(offer);
        // MT: hold the answer until our segment is known (bounded by the QoS timeout), so it reports it.
        if (c.direction == Direction.MT && !c.localQosMet && !c.ended()) c.pendingUpdate = st;
        else answerUpdate(c, st);
    }

    private void answerUpdate(Call c, ServerTransaction st) {
        if (c.pendingUpdate == st) c.pendingUpdate = null;
        try {
            String strength = c.direction == Direction.MT ? "mandatory" : "optional";
            c.imsSdp = QosPreconditions.nextVersion(QosPreconditions.withStatus(c.imsSdp,
                    new QosPreconditions.Status(c.localQosMet ? "sendrecv" : "none", c.remoteQos, strength, false)));
            Response ok = ua.response(Response.OK, st.getRequest());
            ok.addHeader(requests.contact(c.localUser));
            requests.setSdpBody(ok, c.imsSdp);
            st.sendResponse(ok);
            c.flow(String.valueOf(Response.OK));
        } catch (Exception e) {
            log.warn("answer to UPDATE for {} not sent: {}", c.id, e.toString());
        }
        if (c.direction == Direction.MT) alertWhenMet(c);
    }

    /** An ACK; one for a CSeq already ACKed is the UE answering a retransmitted 2xx, not a new step. */
    private void ack(Call c, long cseq) {
        synchronized (c) {
            if (cseq == c.lastAckCseq) return;
            c.lastAckCseq = cseq;
            c.flow(Request.ACK);
            if (c.byeAfterAck) {
                c.byeAfterAck = false;
                teardown.sendBye(c);
                return;
            }
            if (c.state == CallState.ANSWERING) {
                c.state = CallState.CONFIRMED;
                c.markSetupDone();
            }
        }
    }
}

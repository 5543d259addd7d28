package org.webrtcims.gw.call;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.sip.InboundRequestHandler;
import org.webrtcims.gw.sip.SipIds;
import org.webrtcims.gw.sip.SipRequests;
import org.webrtcims.gw.sip.SipUserAgent;

import javax.sip.RequestEvent;
import javax.sip.ServerTransaction;
import javax.sip.TransactionAlreadyExistsException;
import javax.sip.address.SipURI;
import javax.sip.address.URI;
import javax.sip.header.CallIdHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.ToHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/** Requests from the IMS side: new calls toward browsers, and ACK/BYE/CANCEL of existing calls. */
@Component
public class IncomingCalls implements InboundRequestHandler {
    private static final Logger log = LoggerFactory.getLogger(IncomingCalls.class);

    private final SipUserAgent ua;
    private final SipRequests requests;
    private final CallMedia media;
    private final CallTeardown teardown;
    private final CallEventSink sink;
    private final CallRegistry registry;
    private final UserDirectory users;

    public IncomingCalls(SipUserAgent ua, SipRequests requests, CallMedia media, CallTeardown teardown,
                         CallEventSink sink, CallRegistry registry, UserDirectory users) {
        this.ua = ua;
        this.requests = requests;
        this.media = media;
        this.teardown = teardown;
        this.sink = sink;
        this.registry = registry;
        this.users = users;
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
                    if (call.isPresent()) reply(event, Response.NOT_ACCEPTABLE_HERE); // re-INVITE: not yet supported
                    else invite(event, callId);
                }
                case Request.ACK -> call.ifPresent(this::ack);
                case Request.BYE -> bye(event, call);
                case Request.CANCEL -> cancel(event, call);
                default -> reply(event, Response.NOT_IMPLEMENTED);
            }
        } catch (TransactionAlreadyExistsException e) {
            log.debug("retransmitted {} absorbed", req.getMethod());
        } catch (Exception e) {
            log.warn("{} {} failed: {}", req.getMethod(), callId, e.toString());
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
        if (req.getRawContent() == null || req.getRawContent().length == 0) {
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
            String browserSdp;
            try {
                browserSdp = media.offerFromIms(c, new String(req.getRawContent(), StandardCharsets.UTF_8));
            } catch (CallFailure f) {
                teardown.rejectInvite(c, Response.NOT_ACCEPTABLE_HERE);
                teardown.finish(c, f.code(), c.sipFinal);
                return;
            }
            sink.toBrowser(c.owner, CallMessages.of("incoming", c.id, "from", c.remote, "to", user, "sdp", browserSdp));
            Response ringing = ua.response(Response.RINGING, req);
            ((ToHeader) ringing.getHeader(ToHeader.NAME)).setTag(c.toTag);
            ringing.addHeader(requests.contact(user));
            st.sendResponse(ringing);
            c.dialog = st.getDialog();
            c.flow(String.valueOf(Response.RINGING));
        }
    }

    private void respond(ServerTransaction st, Request req, int code, String toTag) throws Exception {
        Response r = ua.response(code, req);
        ((ToHeader) r.getHeader(ToHeader.NAME)).setTag(toTag);
        st.sendResponse(r);
    }

    /** The browser's answer: rtpengine answer, then 200 OK toward IMS. */
    void answer(Call c, String browserSdp) {
        synchronized (c) {
            if (c.state != CallState.INCOMING) throw new CallFailure("bad-message", "call " + c.id + " is not ringing");
            String imsSdp;
            try {
                imsSdp = media.answerFromBrowser(c, browserSdp);
            } catch (CallFailure f) {
                teardown.rejectInvite(c, Response.SERVER_INTERNAL_ERROR);
                teardown.finish(c, f.code(), c.sipFinal);
                throw f;
            }
            try {
                Response ok = ua.response(Response.OK, c.inviteServerTx.getRequest());
                ((ToHeader) ok.getHeader(ToHeader.NAME)).setTag(c.toTag);
                ok.addHeader(requests.contact(c.localUser));
                requests.setSdpBody(ok, imsSdp);
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
    }

    private void ack(Call c) {
        synchronized (c) {
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

    private void bye(RequestEvent event, Optional<Call> call) throws Exception {
        if (call.isEmpty()) {
            reply(event, Response.CALL_OR_TRANSACTION_DOES_NOT_EXIST);
            return;
        }
        Call c = call.get();
        synchronized (c) {
            c.flow(Request.BYE);
            ua.serverTransaction(event).sendResponse(ua.response(Response.OK, event.getRequest()));
            c.flow(String.valueOf(Response.OK));
            teardown.finish(c, "remote-hangup", c.sipFinal);
        }
    }

    private void cancel(RequestEvent event, Optional<Call> call) throws Exception {
        if (call.isEmpty() || call.get().direction() != Direction.MT) {
            reply(event, Response.CALL_OR_TRANSACTION_DOES_NOT_EXIST);
            return;
        }
        Call c = call.get();
        synchronized (c) {
            c.flow(Request.CANCEL);
            ua.serverTransaction(event).sendResponse(ua.response(Response.OK, event.getRequest()));
            c.flow(String.valueOf(Response.OK));
            if (c.state == CallState.INCOMING) {
                teardown.rejectInvite(c, Response.REQUEST_TERMINATED);
                teardown.finish(c, "remote-cancel", Response.REQUEST_TERMINATED);
            }
        }
    }
}

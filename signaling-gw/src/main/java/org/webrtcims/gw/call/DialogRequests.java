package org.webrtcims.gw.call;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.sip.InboundRequestHandler;
import org.webrtcims.gw.sip.SipHeaders;
import org.webrtcims.gw.sip.SipIds;

import javax.sip.RequestEvent;
import javax.sip.ServerTransaction;
import javax.sip.TransactionAlreadyExistsException;
import javax.sip.header.CSeqHeader;
import javax.sip.header.CallIdHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.util.Optional;

/**
 * Every request the IMS side sends the gateway, by method: a new INVITE goes to {@link IncomingCalls}; a
 * re-INVITE, and an UPDATE with SDP in an answered call, to {@link MidCallOffers}; an UPDATE before the answer
 * to {@link Preconditions}; ACK, BYE, CANCEL and PRACK are handled here. In-dialog requests of an unknown call get 481.
 */
@Component
public class DialogRequests implements InboundRequestHandler {
    private static final Logger log = LoggerFactory.getLogger(DialogRequests.class);

    private final CallContext ctx;
    private final IncomingCalls incoming;
    private final MidCallOffers midCall;
    private final Preconditions preconditions;

    public DialogRequests(CallContext ctx, IncomingCalls incoming, MidCallOffers midCall, Preconditions preconditions) {
        this.ctx = ctx;
        this.incoming = incoming;
        this.midCall = midCall;
        this.preconditions = preconditions;
        ctx.ua().setInboundHandler(this);
    }

    @Override
    public void onRequest(RequestEvent event) {
        Request req = event.getRequest();
        String callId = ((CallIdHeader) req.getHeader(CallIdHeader.NAME)).getCallId();
        Optional<Call> call = ctx.registry().find(callId);
        try {
            switch (req.getMethod()) {
                case Request.INVITE -> {
                    if (call.isPresent()) reinvite(event, call.get());
                    else incoming.invite(event, callId);
                }
                case Request.ACK -> call.ifPresent(c -> ack(c, ((CSeqHeader) req.getHeader(CSeqHeader.NAME)).getSeqNumber()));
                case Request.BYE, Request.CANCEL, Request.PRACK, Request.UPDATE -> inDialog(event, call);
                default -> ctx.replies().sip().send(ctx.ua().serverTransaction(event), Response.NOT_IMPLEMENTED, SipIds.tag(), null, null);
            }
        } catch (TransactionAlreadyExistsException e) {
            log.debug("retransmitted {} absorbed", req.getMethod());
        } catch (Exception e) {
            log.warn("{} {} failed: {}", req.getMethod(), callId, e.toString());
        }
    }

    private void reinvite(RequestEvent event, Call c) throws Exception {
        ServerTransaction st = ctx.ua().serverTransaction(event);
        synchronized (c) {
            c.flow(Request.INVITE);
            midCall.fromIms(st, c, SipHeaders.sdp(event.getRequest()));
        }
    }

    /** BYE, CANCEL, PRACK or UPDATE of a known call, under its lock; 481 when the call is unknown. */
    private void inDialog(RequestEvent event, Optional<Call> call) throws Exception {
        String method = event.getRequest().getMethod();
        ServerTransaction st = ctx.ua().serverTransaction(event);
        if (call.isEmpty() || (method.equals(Request.CANCEL) && call.get().direction() != Direction.MT)) {
            ctx.replies().sip().send(st, Response.CALL_OR_TRANSACTION_DOES_NOT_EXIST, SipIds.tag(), null, null);
            return;
        }
        Call c = call.get();
        synchronized (c) {
            c.flow(method);
            switch (method) {
                case Request.BYE -> {
                    ctx.replies().send(c, st, Response.OK);
                    ctx.teardown().finish(c, "remote-hangup", c.sipFinal);
                }
                case Request.CANCEL -> {
                    ctx.replies().send(c, st, Response.OK);
                    if (c.state == CallState.INCOMING) {
                        ctx.teardown().rejectInvite(c, Response.REQUEST_TERMINATED);
                        ctx.teardown().finish(c, "remote-cancel", Response.REQUEST_TERMINATED);
                    }
                }
                case Request.PRACK -> ctx.replies().send(c, st, Response.OK);
                default -> update(st, c);
            }
        }
    }

    /** UPDATE: with SDP in an answered call a mid-call offer (RFC 3311, e.g. hold); before the answer, preconditions. */
    private void update(ServerTransaction st, Call c) {
        String offer = SipHeaders.sdp(st.getRequest());
        if (offer != null && c.state == CallState.CONFIRMED) midCall.fromIms(st, c, offer);
        else preconditions.update(st, c, offer);
    }

    /** An ACK; one for a CSeq already ACKed is the UE answering a retransmitted 2xx, not a new step. */
    private void ack(Call c, long cseq) {
        synchronized (c) {
            if (cseq == c.lastAckCseq) return;
            c.lastAckCseq = cseq;
            c.flow(Request.ACK);
            if (c.byeAfterAck) {
                c.byeAfterAck = false;
                ctx.teardown().sendBye(c);
                return;
            }
            if (c.state == CallState.ANSWERING) {
                c.state = CallState.CONFIRMED;
                c.markSetupDone();
                MediaStartWatch.start(ctx, c);
            }
        }
    }
}

package org.webrtcims.gw.call;

import org.webrtcims.gw.sip.SipReplies;
import org.webrtcims.gw.sip.SipUserAgent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.sip.InboundRequestHandler;
import org.webrtcims.gw.sip.SipHeaders;

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
 * re-INVITE, an UPDATE and a PRACK to the dialog's extensions ({@link DialogExtensions}); the ACK of an MT call's 200
 * to {@link InviteServer}; BYE, CANCEL and the ACK bookkeeping are handled here. In-dialog requests of an unknown call get 481.
 */
@Component
public class DialogRequests implements InboundRequestHandler {
    private static final Logger log = LoggerFactory.getLogger(DialogRequests.class);

    private final SipUserAgent ua;
    private final SipReplies sipReplies;
    private final CallReplies replies;
    private final CallTeardown teardown;
    private final CallRegistry registry;
    private final IncomingCalls incoming;
    private final InviteServer inviteServer;
    private final DialogExtensions extensions;

    public DialogRequests(SipUserAgent ua, SipReplies sipReplies, CallReplies replies, CallTeardown teardown,
                          CallRegistry registry, IncomingCalls incoming, InviteServer inviteServer,
                          DialogExtensions extensions) {
        this.ua = ua;
        this.sipReplies = sipReplies;
        this.replies = replies;
        this.teardown = teardown;
        this.registry = registry;
        this.inviteServer = inviteServer;
        this.incoming = incoming;
        this.extensions = extensions;
        ua.setInboundHandler(this);
    }

    @Override
    public void onRequest(RequestEvent event) {
        Request req = event.getRequest();
        String callId = ((CallIdHeader) req.getHeader(CallIdHeader.NAME)).getCallId();
        Optional<Call> byId = registry.find(callId);
        // A dialog is Call-ID + both tags (RFC 3261 §12): a request with the right Call-ID but foreign tags is not in it.
        Optional<Call> call = byId.isPresent() && inDialogOf(byId.get(), req) ? byId : Optional.empty(); // no lambda: docs/architecture.md "Starting the gateway"
        try {
            switch (req.getMethod()) {
                case Request.INVITE -> {
                    if (call.isPresent() && SipHeaders.toTag(req) != null) reinvite(event, call.get());
                    else if (byId.isEmpty()) incoming.invite(event, callId);
                    else if (SipHeaders.toTag(req) == null && isInviteRetransmission(byId.get(), req)) {
                        log.debug("INVITE {} retransmitted after its transaction ended: dropped (§13.3.1.4)", callId);
                    } else if (SipHeaders.toTag(req) == null) { // a second initial INVITE with a Call-ID in use (§8.2.2.2)
                        sipReplies.send(ua.serverTransaction(event), Response.LOOP_DETECTED, SipUserAgent.newTag(), null, null);
                    } else {
                        sipReplies.send(ua.serverTransaction(event), Response.CALL_OR_TRANSACTION_DOES_NOT_EXIST, null, null, null);
                    }
                }
                case Request.ACK -> call.ifPresent(c -> ack(c, ((CSeqHeader) req.getHeader(CSeqHeader.NAME)).getSeqNumber(), SipHeaders.sdp(req)));
                case Request.BYE, Request.CANCEL, Request.PRACK, Request.UPDATE -> inDialog(event, call);
                default -> sipReplies.send(ua.serverTransaction(event), Response.NOT_IMPLEMENTED, SipUserAgent.newTag(), null, null);
            }
        } catch (TransactionAlreadyExistsException e) {
            log.debug("retransmitted {} absorbed", req.getMethod());
        } catch (Exception e) {
            log.warn("{} {} failed", req.getMethod(), callId, e); // the stack trace, once, in the gateway's log only
            finalAfterFailure(event, e, byId.or(() -> registry.find(callId)));
        }
    }

    /**
     * An MT call's initial INVITE once more, with its Via branch: a retransmission that outlived the INVITE server
     * transaction (which ends with the 2xx), e.g. one the proxy sent before our 100 reached it, delivered late
     * under load. The UAS core retransmits the 2xx itself (RFC 3261 §13.3.1.4, §17.2.1), so the request is dropped;
     * only another branch with the same Call-ID, From tag and CSeq is a merged request (482, §8.2.2.2).
     */
    static boolean isInviteRetransmission(Call c, Request req) {
        ServerTransaction st;
        synchronized (c) {
            st = c.direction == Direction.MT ? c.dialog().inviteServerTx() : null;
        }
        return st != null && isSameRequest(st.getRequest(), req);
    }

    /** Same top Via branch, From tag and CSeq: the same request again. */
    static boolean isSameRequest(Request first, Request again) {
        if (first == null || again == null) return false;
        javax.sip.header.ViaHeader a = (javax.sip.header.ViaHeader) first.getHeader(javax.sip.header.ViaHeader.NAME);
        javax.sip.header.ViaHeader b = (javax.sip.header.ViaHeader) again.getHeader(javax.sip.header.ViaHeader.NAME);
        CSeqHeader ca = (CSeqHeader) first.getHeader(CSeqHeader.NAME);
        CSeqHeader cb = (CSeqHeader) again.getHeader(CSeqHeader.NAME);
        return a != null && b != null && a.getBranch() != null && a.getBranch().equals(b.getBranch())
                && java.util.Objects.equals(SipHeaders.fromTag(first), SipHeaders.fromTag(again))
                && ca != null && cb != null && ca.getSeqNumber() == cb.getSeqNumber() && ca.getMethod().equals(cb.getMethod());
    }

    /**
     * Whether an in-dialog request belongs to the call's dialog: its To tag is the gateway's, its From tag the
     * IMS party's (while that is known). CANCEL matches the INVITE it cancels: no To tag, the caller's From tag.
     */
    static boolean inDialogOf(Call c, Request req) {
        String fromTag = SipHeaders.fromTag(req);
        String toTag = SipHeaders.toTag(req);
        String local;
        String remote;
        synchronized (c) {
            local = c.direction == Direction.MT ? c.dialog().toTag() : c.fromTag;
            remote = c.direction == Direction.MT ? c.fromTag : c.dialog().toTag();
        }
        if (Request.CANCEL.equals(req.getMethod()) || (Request.INVITE.equals(req.getMethod()) && toTag == null)) {
            return c.direction == Direction.MT && java.util.Objects.equals(fromTag, c.fromTag);
        }
        return toTag != null && toTag.equals(local) && (remote == null || remote.equals(fromTag));
    }

    /**
     * A request whose handling failed still gets a final response that says what was wrong (400 with a Warning for
     * a request the gateway could not read, 500 only when its own stack failed: {@link org.webrtcims.gw.sip.RequestFailure}),
     * and a call it created ends with that status.
     */
    private void finalAfterFailure(RequestEvent event, Exception e, Optional<Call> call) {
        Request req = event.getRequest();
        if (Request.ACK.equals(req.getMethod())) return;
        ServerTransaction st = ua.existingServerTransaction(event);
        ua.answerFailure(event, e);
        int status = org.webrtcims.gw.sip.RequestFailure.of(e).status();
        call.ifPresent(c -> {
            synchronized (c) {
                if (Request.INVITE.equals(req.getMethod()) && !c.ended() && c.dialog().inviteServerTx() == st) {
                    c.finalStatus(status);
                    teardown.finish(c, "sip-failed", status);
                }
            }
        });
    }

    private void reinvite(RequestEvent event, Call c) throws Exception {
        ServerTransaction st = ua.serverTransaction(event);
        synchronized (c) {
            c.flow(Request.INVITE);
            String offer = SipHeaders.sdp(event.getRequest());
            if (overQuota(st, c, offer)) return;
            toExtensions(st, c, offer);
        }
    }

    /** BYE, CANCEL, PRACK or UPDATE of a known call, under its lock; 481 when the call is unknown. */
    private void inDialog(RequestEvent event, Optional<Call> call) throws Exception {
        String method = event.getRequest().getMethod();
        ServerTransaction st = ua.serverTransaction(event);
        if (call.isEmpty() || (method.equals(Request.CANCEL) && call.get().direction() != Direction.MT)) {
            sipReplies.send(st, Response.CALL_OR_TRANSACTION_DOES_NOT_EXIST, SipUserAgent.newTag(), null, null);
            return;
        }
        Call c = call.get();
        synchronized (c) {
            c.flow(method);
            switch (method) {
                case Request.BYE -> {
                    replies.send(c, st, Response.OK);
                    teardown.finish(c, "remote-hangup", c.sipFinal());
                }
                case Request.CANCEL -> {
                    replies.send(c, st, Response.OK);
                    if (c.state() == CallState.INCOMING) {
                        teardown.rejectInvite(c, Response.REQUEST_TERMINATED);
                        teardown.finish(c, "remote-cancel", Response.REQUEST_TERMINATED);
                    }
                }
                default -> { // PRACK, UPDATE
                    String offer = SipHeaders.sdp(st.getRequest());
                    if (Request.UPDATE.equals(method) && overQuota(st, c, offer)) return;
                    toExtensions(st, c, offer);
                }
            }
        }
    }

    /**
     * A re-INVITE, UPDATE or PRACK goes to the dialog's extensions ({@link DialogExtensions}: PRACK, the session
     * timer's 422, mid-call offers, preconditions); one none of them answers gets 501.
     */
    private void toExtensions(ServerTransaction st, Call c, String offer) {
        if (!extensions.request(st, c, offer)) replies.send(c, st, Response.NOT_IMPLEMENTED);
    }

    /** An IMS SDP beyond the m-line/candidate quotas is refused 488 before rtpengine sees it; the call goes on. */
    private boolean overQuota(ServerTransaction st, Call c, String offer) {
        try {
            registry.admitSdp(offer);
            return false;
        } catch (CallFailure f) {
            log.info("{} of {} refused 488: {}", st.getRequest().getMethod(), c.id, f.getMessage());
            replies.send(c, st, Response.NOT_ACCEPTABLE_HERE);
            return true;
        }
    }

    /** An ACK; one for a CSeq already ACKed is the UE answering a retransmitted 2xx, not a new step. */
    private void ack(Call c, long cseq, String sdp) {
        synchronized (c) {
            if (!c.dialog().ackReceived(cseq)) return;
            c.flow(Request.ACK);
            if (c.dialog().takeByeAfterAck()) {
                teardown.sendBye(c);
                return;
            }
            if (c.state() == CallState.ANSWERING) inviteServer.acked(c, sdp); // MT: the ACK of our 200
        }
    }

    /**
     * The stack gave up on a call's dialog (no ACK for our 2xx within 64×T1, an early dialog left too long):
     * the call ends with `timeout`, a BYE goes if the dialog was answered (RFC 3261 §13.3.1.4), and its
     * rtpengine session is deleted. A BYE the browser's hang-up deferred until the ACK goes now.
     */
    @Override
    public void onDialogTimeout(javax.sip.Dialog dialog, String reason) {
        callOf(dialog).filter(c -> c.dialog().is(dialog)).ifPresent(c -> {
            synchronized (c) {
                if (c.ended()) {
                    if (c.dialog().takeByeAfterAck()) teardown.sendBye(c);
                    return;
                }
                log.info("call {}: dialog timeout ({}), ending it", c.id, reason);
                endOnTimeout(c);
            }
        });
    }

    /** A dialog the stack deleted under a live call (not after its BYE): the call ends with `timeout`. */
    @Override
    public void onDialogTerminated(javax.sip.Dialog dialog) {
        callOf(dialog).filter(c -> c.dialog().is(dialog)).ifPresent(c -> {
            synchronized (c) {
                if (c.ended()) return;
                log.info("call {}: its dialog was terminated by the SIP stack in state {}, ending it", c.id, c.state());
                teardown.finish(c, "timeout", c.sipFinal());
            }
        });
    }

    /** The INVITE server transaction of a live MT call timed out: the call ends with `timeout`. */
    @Override
    public void onServerTimeout(ServerTransaction tx) {
        if (tx == null || tx.getRequest() == null) return;
        String callId = ((CallIdHeader) tx.getRequest().getHeader(CallIdHeader.NAME)).getCallId();
        registry.find(callId).filter(c -> c.dialog().inviteServerTx() == tx).ifPresent(c -> {
            synchronized (c) {
                if (c.ended()) return;
                log.info("call {}: INVITE server transaction timed out in state {}, ending it", c.id, c.state());
                endOnTimeout(c);
            }
        });
    }

    private void endOnTimeout(Call c) {
        if (c.state() == CallState.ANSWERING || c.state() == CallState.CONFIRMED) {
            teardown.sendBye(c);
            teardown.finish(c, "timeout", c.sipFinal());
        } else {
            teardown.hangUp(c, "timeout");
        }
    }

    private Optional<Call> callOf(javax.sip.Dialog dialog) {
        if (dialog == null || dialog.getCallId() == null) return Optional.empty();
        return registry.find(dialog.getCallId().getCallId());
    }
}

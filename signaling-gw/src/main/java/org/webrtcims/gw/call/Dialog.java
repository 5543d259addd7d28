package org.webrtcims.gw.call;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sip.ClientTransaction;
import javax.sip.ServerTransaction;
import javax.sip.header.CSeqHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * The SIP side of one call: its JAIN-SIP dialog (route set, CSeq; in-dialog requests are created and sent here), the tags, the INVITE transaction of either
 * direction, the Contact user and identity the call goes out with, and the ACK bookkeeping. Guarded by the call's
 * monitor (the caller holds it).
 */
final class Dialog {
    private static final Logger log = LoggerFactory.getLogger(Dialog.class);

    private final String callId;
    private final InDialogSender sender;
    /** The call's SIP flow: what this dialog answers is recorded there. */
    private final java.util.function.Consumer<String> flow;
    private javax.sip.Dialog sip;
    /** The To tag: MT the gateway's own, MO the IMS party's (the fork the call follows). */
    private String toTag;
    private ClientTransaction inviteTx;
    private ServerTransaction inviteServerTx;
    /** RFC 3261 §15: the browser hung up while our 2xx waited for its ACK; the BYE goes with the ACK. */
    private boolean byeAfterAck;
    /** CSeq of the last ACK received: a repeated one (2xx retransmitted) is not recorded twice. */
    private long lastAckCseq = -1;
    /**
     * The user part of the Contact of this dialog: the registration's random one (sip/ContactUsers), never the login
     * name. MT: the INVITE's Request-URI user; MO: the caller's registration's.
     */
    private String contactUser;
    /** MO: the registered public user identity the call goes out as (From, P-Preferred-Identity); null for MT. */
    private String callerIdentity;
    /** MO: the To tags of other forks whose late 2xx got ACK and BYE. */
    private final java.util.Set<String> closedForks = new java.util.HashSet<>();

    /** A dialog that records nothing (tests of the dialog alone). */
    Dialog(String callId, InDialogSender sender) {
        this(callId, sender, item -> { });
    }

    /**
     * A call's dialog; {@code sender} sends its in-dialog requests (null: a dialog that sends none, in tests),
     * {@code flow} records in the call's SIP flow what it answers.
     */
    Dialog(String callId, InDialogSender sender, java.util.function.Consumer<String> flow) {
        this.callId = callId;
        this.sender = sender;
        this.flow = flow;
    }

    javax.sip.Dialog sip() { return sip; }
    String toTag() { return toTag; }
    ClientTransaction inviteTx() { return inviteTx; }
    ServerTransaction inviteServerTx() { return inviteServerTx; }
    String contactUser() { return contactUser; }
    String callerIdentity() { return callerIdentity; }

    // ---- MO ----

    /** MO: who the call goes out as (identity) and the Contact user of its registration. */
    void caller(String identity, String contactUser) {
        this.callerIdentity = identity;
        this.contactUser = contactUser;
    }

    /** MO: our INVITE went out on {@code tx} (its dialog is the call's until a response names a fork). */
    void inviteSent(ClientTransaction tx) {
        inviteTx = tx;
        sip = tx.getDialog();
    }

    /** MO after a 422: the INVITE goes again, no fork is followed any more. */
    void forgetFork() { toTag = null; }

    /**
     * MO: a response of the fork {@code tag} on dialog {@code d} (RFC 3261 §13.2.2.4): while the call is early it
     * follows that fork's dialog when it follows none or that one; the first tag seen names the IMS side.
     */
    void followFirstFork(javax.sip.Dialog d, String tag, boolean early) {
        if (early && (toTag == null || toTag.equals(tag))) sip = d;
        if (toTag == null && tag != null) toTag = tag;
    }

    /** MO: the call follows this fork (the one whose answer the browser gets, or the one that answered 2xx). */
    void follow(javax.sip.Dialog d, String tag) {
        if (tag != null) toTag = tag;
        sip = d;
    }

    /** Whether {@code tag} is another fork than the one the call follows. */
    boolean otherFork(String tag) { return tag != null && toTag != null && !tag.equals(toTag); }

    /** Another fork's 2xx is being closed (ACK, BYE): true the first time for {@code tag} (the BYE goes then only). */
    boolean forkClosed(String tag) { return closedForks.add(tag); }

    /** ACKs a 2xx to one of our INVITEs ({@code what}: which, for the log) on the call's dialog; false when it failed. */
    boolean ack(Response ok, String what) {
        try {
            long cseq = ((CSeqHeader) ok.getHeader(CSeqHeader.NAME)).getSeqNumber();
            sip.sendAck(sip.createAck(cseq));
            return true;
        } catch (Exception e) {
            log.warn("ACK of {} for {} not sent: {}", what, callId, e.toString());
            return false;
        }
    }

    // ---- MT ----

    /** MT: the INVITE arrived on {@code st}; the gateway answers with its own To tag. */
    void invitedBy(ServerTransaction st, String localTag, String contactUser) {
        inviteServerTx = st;
        toTag = localTag;
        this.contactUser = contactUser;
    }

    /** MT: the dialog the INVITE's server transaction has now (early after 180/183, confirmed after 200). */
    void dialogOfInvite() { sip = inviteServerTx.getDialog(); }

    /** MT: the early dialog of our 180, unless one is known already. */
    void earlyDialogOfInvite() { if (sip == null) sip = inviteServerTx.getDialog(); }

    /** MT: the To tag a response the stack completed carries. */
    void localTag(String tag) { toTag = tag; }

    /** An ACK with {@code cseq} arrived: false when that CSeq was ACKed already (the UE answering a retransmitted 2xx). */
    boolean ackReceived(long cseq) {
        if (cseq == lastAckCseq) return false;
        lastAckCseq = cseq;
        return true;
    }

    /** The browser hung up before the ACK of our 2xx: the BYE waits for it (RFC 3261 §15). */
    void byeAfterAck() { byeAfterAck = true; }

    /** Whether a BYE waits for the ACK; true once (the caller sends it). */
    boolean takeByeAfterAck() {
        boolean b = byeAfterAck;
        byeAfterAck = false;
        return b;
    }

    // ---- both ----

    /** A new in-dialog request (the stack fills route set, CSeq, tags). */
    Request request(String method) throws javax.sip.SipException { return sip.createRequest(method); }

    /** Sends an in-dialog request on the call's dialog; its responses go to {@code handler}. */
    void send(Request request, org.webrtcims.gw.sip.ResponseHandler handler) throws javax.sip.SipException {
        if (sender == null) throw new javax.sip.SipException("call " + callId + " has no SIP stack to send with");
        sender.send(sip, request, handler);
    }

    /**
     * Answers an in-dialog request of this dialog on {@code st}: {@code code} with the dialog's Contact and
     * {@code sdp} (null: no body), built by the SIP stack's one response builder ({@code sip}), and recorded in the
     * call's SIP flow; false, logged, when it could not be sent. Carries no session-timer headers: RFC 4028 puts
     * them on a 2xx to an INVITE or to a confirmed call's refresh, which {@link CallReplies} sends.
     */
    boolean reply(org.webrtcims.gw.sip.SipReplies sip, ServerTransaction st, int code, String sdp) {
        try {
            sip.send(st, code, null, contactUser, sdp);
            flow.accept(String.valueOf(code));
            return true;
        } catch (Exception e) {
            log.warn("{} to {} for {} not sent: {}", code, st.getRequest().getMethod(), callId, e.toString());
            return false;
        }
    }

    /** The PRACK of a reliable provisional on {@code d} (the fork that sent it). */
    static Request prack(javax.sip.Dialog d, Response reliable) throws javax.sip.SipException {
        return d.createPrack(reliable);
    }

    /** Whether {@code d} is this call's dialog (the stack's timeout and termination events). */
    boolean is(javax.sip.Dialog d) { return sip == d; }
}

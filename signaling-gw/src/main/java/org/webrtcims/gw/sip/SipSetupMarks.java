package org.webrtcims.gw.sip;

import org.webrtcims.gw.metrics.SetupTimeline;

import javax.sip.ServerTransaction;
import javax.sip.header.CSeqHeader;
import javax.sip.header.CallIdHeader;
import javax.sip.header.ToHeader;
import javax.sip.message.Message;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * The SIP points of a call's set-up timeline (metrics/SetupTimeline, issue #26), by the call's Call-ID: the
 * gateway's INVITE sent, IMS's initial INVITE received, IMS's answer received (an 18x or 2xx with a body to the
 * INVITE) and the 2xx to IMS's INVITE sent. Every other message marks nothing.
 */
final class SipSetupMarks {
    private final SetupTimeline timeline;

    SipSetupMarks(SetupTimeline timeline) {
        this.timeline = timeline;
    }

    /** A request went out: an INVITE marks INVITE_SENT (MO). */
    void sent(Request request) {
        if (Request.INVITE.equals(request.getMethod())) timeline.mark(callIdOf(request), SetupTimeline.Mark.INVITE_SENT);
    }

    /** A request from IMS, received at nanos, goes to the call layer: an initial INVITE (no To tag) marks INVITE_RECEIVED (MT). */
    void received(Request request, long nanos) { received(request, nanos, -1); }

    /** As {@link #received(Request, long)}, with this thread's CPU time at nanos (SetupTimeline#cpuNow). */
    void received(Request request, long nanos, long cpuNanos) {
        if (Request.INVITE.equals(request.getMethod()) && request.getHeader(ToHeader.NAME) instanceof ToHeader to && to.getTag() == null) {
            timeline.mark(callIdOf(request), SetupTimeline.Mark.INVITE_RECEIVED, nanos, cpuNanos);
        }
    }

    /** A response, received at nanos, goes to its handler: an 18x or 2xx with a body to an INVITE marks IMS_ANSWER_RECEIVED. */
    void received(Response response, long nanos) { received(response, nanos, -1); }

    /** As {@link #received(Response, long)}, with this thread's CPU time at nanos (SetupTimeline#cpuNow). */
    void received(Response response, long nanos, long cpuNanos) {
        int code = response.getStatusCode();
        if (code >= 180 && code < 300 && response.getRawContent() != null
                && response.getHeader(CSeqHeader.NAME) instanceof CSeqHeader cseq && Request.INVITE.equals(cseq.getMethod())) {
            timeline.mark(callIdOf(response), SetupTimeline.Mark.IMS_ANSWER_RECEIVED, nanos, cpuNanos);
        }
    }

    /** A response went on its server transaction: a 2xx to an INVITE marks OK_SENT (MT: 200 sent). */
    void responded(ServerTransaction st, Response r) {
        if (r.getStatusCode() / 100 == 2 && st.getRequest() != null && Request.INVITE.equals(st.getRequest().getMethod())) {
            timeline.mark(callIdOf(r), SetupTimeline.Mark.OK_SENT);
        }
    }

    private static String callIdOf(Message m) {
        return m.getHeader(CallIdHeader.NAME) instanceof CallIdHeader id ? id.getCallId() : null;
    }
}

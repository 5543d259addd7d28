package org.webrtcims.gw.call;

import org.springframework.stereotype.Component;
import org.webrtcims.gw.sip.SipHeaders;

import javax.sip.message.Response;

/**
 * Early media on an MO call (RFC 3261 §13.2.1, RFC 3960): the first provisional with an SDP answer gives the browser
 * its answer (`progress` with the SDP) and the call follows that fork's early dialog; with preconditions the answer
 * starts the gateway's QoS report ({@link Preconditions#moAnswered}). The browser hears `ringing` for a 180 and
 * `progress` for other provisionals without an answer.
 */
@Component
public class EarlyMedia implements DialogExtension {
    private final CallEventSink sink;
    private final CallTeardown teardown;
    private final Preconditions preconditions;

    public EarlyMedia(CallEventSink sink, CallTeardown teardown, Preconditions preconditions) {
        this.sink = sink;
        this.teardown = teardown;
        this.preconditions = preconditions;
    }

    @Override
    public void provisional(Call c, Response r, javax.sip.Dialog d) {
        int code = r.getStatusCode();
        String sdp = SipHeaders.sdp(r);
        if (sdp != null && c.media().browserAnswer() == null) {
            c.dialog().follow(d, SipHeaders.toTag(r)); // the early dialog whose answer the browser gets
            if (!takeAnswer(c, sdp)) return;
            sink.toBrowser(c.owner, CallMessages.of("progress", c.id, "sipCode", code, "sdp", c.media().browserAnswer()));
            preconditions.moAnswered(c, sdp);
            if (code != Response.RINGING) return;
        }
        if (code == Response.RINGING) sink.toBrowser(c.owner, CallMessages.of("ringing", c.id));
        else if (sdp == null) sink.toBrowser(c.owner, CallMessages.of("progress", c.id, "sipCode", code));
    }

    /** rtpengine's answer toward the browser from the IMS answer; false (the call ended) on failure. */
    private boolean takeAnswer(Call c, String imsAnswer) {
        try {
            c.media().browserAnswered(c.media().bridgeImsAnswer(imsAnswer));
            return true;
        } catch (CallFailure f) {
            sink.toBrowser(c.owner, CallMessages.of("error", c.id, "code", f.code(), "message", f.getMessage()));
            teardown.hangUp(c, f.code());
            return false;
        }
    }
}

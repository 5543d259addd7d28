package org.webrtcims.gw.media;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.webrtcims.gw.sdp.DataChannelSdp;

/**
 * Real-time text at the data-channel endpoint (issue #25; RFC 8865 §6, the gateway between a T.140 data channel and
 * RFC 4103 RTP text): its text bridge's commands for one call, as the call's SDP step (sdp/DataChannelSdp with its
 * sdp/TextSdp) asks for them through {@link DataChannelLegs#forCall}: {@code text-offer} for the browser's T.140
 * channel (MO), {@code text-offer from: ims} for an IMS offer with `m=text` (MT), {@code text-answer} for the IMS
 * side's `m=text` answer. Refusals are logged here and leave the call without text; the SDP work and the per-call
 * state are sdp/'s. The endpoint's {@code delete} of the call's session ends the bridge too.
 */
final class RealTimeText {
    private static final Logger log = LoggerFactory.getLogger(RealTimeText.class);

    private final DataChannelClient client;

    /** client null: no endpoint, every text offer is refused. */
    RealTimeText(DataChannelClient client) { this.client = client; }

    /** MO: the endpoint's SDP with the `m=text` section for the browser's T.140 channel, null when refused. */
    String offer(String callId, int channel) {
        try {
            String sdp = endpoint().textOffer(callId, channel);
            log.info("call {}: real-time text: the browser's T.140 channel {} bridged to m=text toward IMS", callId, channel);
            return sdp;
        } catch (NgException e) {
            log.warn("call {}: the data-channel endpoint refused real-time text ({}): the call goes on without text", callId, e.getMessage());
            return null;
        }
    }

    /** MT: the endpoint's T.140 channel toward the browser and its `m=text` answer toward IMS, null when refused. */
    DataChannelSdp.Sdps offerFromIms(String callId, String imsSdp) {
        try {
            DataChannelClient.Sdps r = endpoint().textOfferFromIms(callId, imsSdp);
            log.info("call {}: real-time text from IMS: m=text answered, a T.140 channel offered to the browser", callId);
            return new DataChannelSdp.Sdps(r.browser(), r.ims());
        } catch (NgException e) {
            log.warn("call {}: the data-channel endpoint refused the IMS side's text ({}): the call goes on without text", callId, e.getMessage());
            return null;
        }
    }

    /** The IMS side's `m=text` answer given to the bridge; false when the endpoint refused it. */
    boolean answer(String callId, String imsSdp) {
        try {
            int generations = endpoint().textAnswer(callId, imsSdp);
            log.info("call {}: real-time text answered by IMS, {} redundant generation(s)", callId, generations);
            return true;
        } catch (NgException e) {
            stopped(callId, "the data-channel endpoint refused the IMS text answer (" + e.getMessage() + ")");
            return false;
        }
    }

    /** The call's text ended; its data channels may go on. */
    void stopped(String callId, String why) { log.info("call {}: {}: no real-time text on this call", callId, why); }

    private DataChannelClient endpoint() throws NgException {
        if (client == null) {
            throw new NgException(NgException.Kind.ERROR_RESULT, "no data-channel endpoint is configured (lab.datachannel.ng)");
        }
        return client;
    }
}

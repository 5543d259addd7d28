package org.webrtcims.gw.call;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.media.DtmfLogEvent;

import java.util.function.Consumer;

/**
 * UE → browser DTMF: each event rtpengine logged (media/DtmfLogListener) becomes one WebSocket
 * `dtmf {callId, digit, durationMs, source: "ims"}` for the call's owner. The rtpengine call-id is the SIP
 * Call-ID, i.e. the gateway's callId. Events whose source is the browser's own tag are left out: rtpengine
 * logs what it injects for `play DTMF` and what the browser's RTCDTMFSender sends, too.
 */
@Component
public class ImsDtmfRelay implements Consumer<DtmfLogEvent> {
    private static final Logger log = LoggerFactory.getLogger(ImsDtmfRelay.class);

    private final CallRegistry registry;
    private final CallEventSink sink;

    public ImsDtmfRelay(CallRegistry registry, CallEventSink sink) {
        this.registry = registry;
        this.sink = sink;
    }

    @Override
    public void accept(DtmfLogEvent ev) {
        Call c = registry.find(ev.callId()).orElse(null);
        if (c == null) {
            log.debug("DTMF event for a call this gateway does not know: {}", ev); // e.g. another gateway's
            return;
        }
        String digit = ev.digit().orElse(null);
        synchronized (c) {
            if (c.state == CallState.ENDED || ev.sourceTag().equals(c.browserTag())) return;
            if (digit == null) {
                log.info("call {}: RFC 4733 event {} from IMS is not a DTMF key, not forwarded", c.id, ev.event());
                return;
            }
        }
        sink.toBrowser(c.owner, CallMessages.of("dtmf", c.id, "digit", digit, "durationMs", ev.durationMs(), "source", "ims"));
    }
}

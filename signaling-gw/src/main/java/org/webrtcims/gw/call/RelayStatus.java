package org.webrtcims.gw.call;

import java.util.List;
import java.util.Map;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.media.NgException;
import org.webrtcims.gw.media.RtpEngineClient;

/**
 * What the browser face may know of the media relays: their health, this gateway's calls on each, its sessions.
 * api/ reaches media/ only through call/ (docs/architecture.md, the never-edges), so the health endpoint and the
 * lab's teardown checks read rtpengine here.
 */
@Component
public class RelayStatus {
    private final RtpEngineClient rtp;

    public RelayStatus(RtpEngineClient rtp) {
        this.rtp = rtp;
    }

    /** Each relay's ng address ("host:port") → whether it answered pong now, in the configured order. */
    public Map<String, Boolean> pingEach() {
        return rtp.relays().pingEach();
    }

    /** Each relay's ng address → this gateway's calls it holds now, in the configured order. */
    public Map<String, Integer> callsPerRelay() {
        return rtp.relays().callsPerRelay();
    }

    /** This gateway's sessions on every relay (gateway call-ids); a relay that cannot be asked is `media-failed`. */
    public List<String> sessions() {
        try {
            return rtp.list();
        } catch (NgException e) {
            throw new CallFailure("media-failed", "rtpengine list failed: " + e.getMessage());
        }
    }
}

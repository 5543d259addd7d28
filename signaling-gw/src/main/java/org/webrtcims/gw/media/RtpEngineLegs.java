package org.webrtcims.gw.media;

import java.util.List;
import java.util.Map;

/**
 * How rtpengine's two legs are set up (issue #17): its named interfaces (its `--interface=NAME/ADDR`) for the
 * browser and the IMS leg, sent as ng `direction` (null = one unnamed interface, no `direction` key); iceLite:
 * rtpengine is ICE-lite toward the browser (ng `ICE-lite`), so the browser is the controlling agent on MO and MT
 * calls.
 */
public record RtpEngineLegs(String browserInterface, String imsInterface, boolean iceLite) {
    /** One unnamed interface, full ICE. */
    public static final RtpEngineLegs DEFAULT = new RtpEngineLegs(null, null, false);

    public RtpEngineLegs {
        if ((browserInterface == null) != (imsInterface == null)) {
            throw new IllegalArgumentException("name both rtpengine interfaces (browser and IMS) or neither");
        }
    }

    /**
     * An SDP from the browser: ng `direction` [browser, IMS] (also on answers: the docs say rtpengine remembers it,
     * but sipwise/rtpengine#2012 saw answers need it), and on offers (iceLiteOnOffer non-null) the ICE-lite side.
     */
    void fromBrowser(Map<String, Object> cmd, String iceLiteOnOffer) {
        if (browserInterface != null) cmd.put(NgFlags.DIRECTION, List.of(browserInterface, imsInterface));
        iceLite(cmd, iceLiteOnOffer);
    }

    /** An SDP from IMS: ng `direction` [IMS, browser]; on offers ICE-lite toward the browser (`forward`). */
    void fromIms(Map<String, Object> cmd, String iceLiteOnOffer) {
        if (browserInterface != null) cmd.put(NgFlags.DIRECTION, List.of(imsInterface, browserInterface));
        iceLite(cmd, iceLiteOnOffer);
    }

    private void iceLite(Map<String, Object> cmd, String side) {
        if (iceLite && side != null) cmd.put(NgFlags.ICE_LITE, side);
    }
}

package org.webrtcims.gw.media;

import java.util.List;
import java.util.Map;

/**
 * How rtpengine's two legs are set up (issue #17): its named interfaces (its `--interface=NAME/ADDR`) for the
 * browser and the IMS leg, sent as ng `direction` (null = one unnamed interface, no `direction` key); iceLite:
 * rtpengine is ICE-lite toward the browser (ng `ICE-lite`), so the browser is the controlling agent on MO and MT
 * calls. imsIpv6: the IMS leg is IPv6 and the browser leg IPv4 (TS 23.334's IPv4/IPv6 interworking at the
 * eIMS-AGW, issue #23): every SDP rtpengine writes carries ng `address family` for its recipient (IP6 toward IMS,
 * IP4 toward the browser), since `direction` alone does not switch families (rtpengine keeps the family of the SDP
 * it was given when the recipient is not known yet).
 */
public record RtpEngineLegs(String browserInterface, String imsInterface, boolean iceLite, boolean imsIpv6) {
    /** One unnamed interface, full ICE. */
    public static final RtpEngineLegs DEFAULT = new RtpEngineLegs(null, null, false);
    static final String IP4 = "IP4";
    static final String IP6 = "IP6";

    public RtpEngineLegs {
        if ((browserInterface == null) != (imsInterface == null)) {
            throw new IllegalArgumentException("name both rtpengine interfaces (browser and IMS) or neither");
        }
    }

    /** Both legs in the same address family (IPv4). */
    public RtpEngineLegs(String browserInterface, String imsInterface, boolean iceLite) {
        this(browserInterface, imsInterface, iceLite, false);
    }

    /**
     * An SDP from the browser: ng `direction` [browser, IMS] (also on answers: the docs say rtpengine remembers it,
     * but sipwise/rtpengine#2012 saw answers need it), and on offers (iceLiteOnOffer non-null) the ICE-lite side.
     */
    void fromBrowser(Map<String, Object> cmd, String iceLiteOnOffer) {
        if (browserInterface != null) cmd.put(NgFlags.DIRECTION, List.of(browserInterface, imsInterface));
        if (imsIpv6) cmd.put(NgFlags.ADDRESS_FAMILY, IP6); // the SDP goes to IMS
        iceLite(cmd, iceLiteOnOffer);
    }

    /** An SDP from IMS: ng `direction` [IMS, browser]; on offers ICE-lite toward the browser (`forward`). */
    void fromIms(Map<String, Object> cmd, String iceLiteOnOffer) {
        if (browserInterface != null) cmd.put(NgFlags.DIRECTION, List.of(imsInterface, browserInterface));
        if (imsIpv6) cmd.put(NgFlags.ADDRESS_FAMILY, IP4); // the SDP goes to the browser
        iceLite(cmd, iceLiteOnOffer);
    }

    private void iceLite(Map<String, Object> cmd, String side) {
        if (iceLite && side != null) cmd.put(NgFlags.ICE_LITE, side);
    }
}

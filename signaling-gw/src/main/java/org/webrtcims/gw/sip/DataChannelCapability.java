package org.webrtcims.gw.sip;

import gov.nist.javax.sip.header.ParametersHeader;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.config.DataChannelProperties;

import javax.sip.header.ContactHeader;
import java.text.ParseException;

/**
 * The gateway's data-channel capability in SIP (TS 23.228 AC.4, TS 26.114 §6.2.10.1; docs/datachannel.md
 * "Bootstrap"): when it drives a data-channel endpoint (lab.datachannel.ng set), its Contact on REGISTER, INVITE and
 * their answers carries the media feature tag {@code +sip.app-subtype="webrtc-datachannel"} (RFC 5688), so the home
 * network learns that the UE (each browser user behind the gateway) can use IMS data channels. Without an endpoint
 * the gateway refuses data-channel sections and does not claim the capability.
 */
@Component
public class DataChannelCapability {
    public static final String TAG = "+sip.app-subtype";
    public static final String VALUE = "webrtc-datachannel";

    private final boolean on;

    @org.springframework.beans.factory.annotation.Autowired
    public DataChannelCapability(DataChannelProperties props) {
        this(props.getNg() != null && !props.getNg().isBlank());
    }

    DataChannelCapability(boolean on) { this.on = on; }

    public boolean on() { return on; }

    /** Adds the feature tag to a Contact of the gateway (nothing without an endpoint). */
    public void tag(ContactHeader contact) throws ParseException {
        if (on) ((ParametersHeader) contact).setQuotedParameter(TAG, VALUE);
    }
}

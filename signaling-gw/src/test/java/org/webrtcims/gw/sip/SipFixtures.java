package org.webrtcims.gw.sip;

import javax.sip.SipFactory;
import javax.sip.address.AddressFactory;
import javax.sip.address.SipURI;
import javax.sip.header.HeaderFactory;
import javax.sip.message.MessageFactory;
import javax.sip.message.Request;
import java.util.List;

/** Real JAIN-SIP messages for unit tests: what Kamailio would hand the gateway. */
public final class SipFixtures {
    public static final AddressFactory ADDRESSES;
    public static final HeaderFactory HEADERS;
    public static final MessageFactory MESSAGES;

    static {
        try {
            SipFactory f = SipFactory.getInstance();
            f.setPathName("gov.nist");
            ADDRESSES = f.createAddressFactory();
            HEADERS = f.createHeaderFactory();
            MESSAGES = f.createMessageFactory();
        } catch (Exception e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private SipFixtures() { }

    public static Request request(String method, String toUser, String callId, String fromTag, String toTag, long cseq, String sdp) throws Exception {
        SipURI ruri = ADDRESSES.createSipURI(toUser, "127.0.0.1");
        ruri.setPort(5070);
        Request r = MESSAGES.createRequest(ruri, method, HEADERS.createCallIdHeader(callId),
                HEADERS.createCSeqHeader(cseq, method),
                HEADERS.createFromHeader(ADDRESSES.createAddress(ADDRESSES.createSipURI("ue2", "ims.lab")), fromTag),
                HEADERS.createToHeader(ADDRESSES.createAddress(ADDRESSES.createSipURI(toUser, "ims.lab")), toTag),
                List.of(HEADERS.createViaHeader("127.0.0.1", 5060, "udp", "z9hG4bK-" + method + cseq)),
                HEADERS.createMaxForwardsHeader(69));
        if (sdp != null) r.setContent(sdp, HEADERS.createContentTypeHeader("application", "sdp"));
        return r;
    }

    /** A message as the stack parses it off the wire ("\n" line ends become CRLF), with the gateway's strict parser. */
    public static javax.sip.message.Message parse(String text) throws Exception {
        byte[] bytes = text.replace("\r\n", "\n").replace("\n", "\r\n").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        return new StrictMessageParserFactory().createMessageParser(null).parseSIPMessage(bytes, true, false,
                (e, msg, headerClass, header, message) -> msg.addUnparsed(header)); // as the stack's channels do
    }
}

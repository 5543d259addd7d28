package org.webrtcims.gw.sdp;

/**
 * The SDPs of real-time text (RFC 8865 T.140 channel <-> RFC 4103 `m=text`) that the endpoint and the IMS side give in
 * the text tests: sdp/TextSdpTest (the SDP step) and media/DataChannelLegsTextTest (the endpoint's commands), written once.
 */
public final class TextSdpFixtures {
    private TextSdpFixtures() {
    }

    /** The endpoint's browser-side data-channel section (its `sdp`). */
    public static final String EP_BROWSER = "v=0\r\ns=-\r\na=ice-lite\r\nm=application 31001 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 198.18.0.1\r\na=setup:passive\r\n";
    /** The endpoint's IMS-side data-channel section (its `ims-sdp`). */
    public static final String EP_IMS = "v=0\r\ns=-\r\na=ice-lite\r\nm=application 31002 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 127.0.0.1\r\na=setup:actpass\r\n";
    /** The endpoint's `m=text` toward IMS (its text offer: RFC 4103 t140 + red). */
    public static final String EP_TEXT = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=text 31004 RTP/AVP 100 98\r\nc=IN IP4 127.0.0.1\r\n"
            + "a=rtpmap:100 red/1000\r\na=fmtp:100 98/98/98\r\na=rtpmap:98 t140/1000\r\na=fmtp:98 cps=30\r\n";
    /** An IMS answer with audio and `m=text`. */
    public static final String IMS_ANSWER = "v=0\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 6000 RTP/AVP 111\r\n"
            + "m=text 6002 RTP/AVP 100 98\r\na=rtpmap:100 red/1000\r\na=fmtp:100 98/98/98\r\na=rtpmap:98 t140/1000\r\n";
    /** MT: the endpoint's T.140 channel toward the browser, from an IMS offer with `m=text`. */
    public static final String EP_T140_OFFER = "v=0\r\ns=-\r\na=ice-lite\r\nm=application 31001 UDP/DTLS/SCTP webrtc-datachannel\r\n"
            + "c=IN IP4 198.18.0.1\r\na=setup:actpass\r\na=dcmap:1001 label=\"t140\";subprotocol=\"t140\"\r\n";
    /** MT: the endpoint's `m=text` answer toward IMS. */
    public static final String EP_TEXT_ANSWER = "v=0\r\ns=-\r\nt=0 0\r\nm=text 31004 RTP/AVP 100 98\r\nc=IN IP4 127.0.0.1\r\n"
            + "a=rtpmap:100 red/1000\r\na=fmtp:100 98/98/98\r\na=rtpmap:98 t140/1000\r\n";
}

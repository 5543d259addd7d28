package org.webrtcims.gw.sip;

import org.junit.jupiter.api.Test;

import javax.sip.message.Request;

import static org.junit.jupiter.api.Assertions.*;

/** Option tags in Supported/Require (one header each or comma lists, any case) and SDP bodies. */
class SipHeadersTest {
    @Test
    void optionTagsAreFoundInSeparateAndCombinedHeaders() throws Exception {
        Request r = SipFixtures.request(Request.INVITE, "alice", "c1", "ft", null, 1, null);
        assertFalse(SipHeaders.supportsOrRequires(r, "100rel"));
        r.addHeader(SipFixtures.HEADERS.createSupportedHeader("timer, 100REL"));
        r.addHeader(SipFixtures.HEADERS.createRequireHeader("precondition"));
        assertTrue(SipHeaders.supportsOrRequires(r, "100rel"));
        assertTrue(SipHeaders.supportsOrRequires(r, "precondition"));
        assertTrue(SipHeaders.requires(r, "precondition"));
        assertFalse(SipHeaders.requires(r, "100rel"), "only Supported, not Require");
        assertFalse(SipHeaders.supportsOrRequires(r, "rel"), "whole tags only");
    }

    @Test
    void sdpIsTheBodyOrNull() throws Exception {
        assertNull(SipHeaders.sdp(SipFixtures.request(Request.BYE, "alice", "c1", "ft", "tt", 2, null)));
        String sdp = "v=0\r\ns=é\r\n";
        assertEquals(sdp, SipHeaders.sdp(SipFixtures.request(Request.INVITE, "alice", "c1", "ft", null, 1, sdp)));
    }
}

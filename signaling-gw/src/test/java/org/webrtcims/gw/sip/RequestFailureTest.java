package org.webrtcims.gw.sip;

import org.junit.jupiter.api.Test;

import javax.sip.header.WarningHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;

import static org.junit.jupiter.api.Assertions.*;

/** A failure on a peer's request: 400 with a Warning for what the peer sent, 500 only for the gateway's own stack. */
class RequestFailureTest {
    @Test
    void thePeersInputIsA400AndTheStacksFailureA500() {
        assertEquals(400, RequestFailure.of(new NullPointerException("x")).status(), "an NPE on a header is the peer's input");
        assertEquals(400, RequestFailure.of(new java.text.ParseException("bad", 0)).status());
        assertEquals(500, RequestFailure.of(new javax.sip.SipException("send failed")).status());
        assertEquals(500, RequestFailure.of(new Exception("checked")).status());
    }

    @Test
    void theWarningSaysWhatWasWrongWithoutNamingAClass() throws Exception {
        Request r = SipFixtures.request(Request.INVITE, "alice", "c1", "ft", null, 1, null);
        Response resp = SipFixtures.MESSAGES.createResponse(400, r);
        RequestFailure f = RequestFailure.of(new NullPointerException("Cannot invoke \"String.split(String)\""));
        f.addWarning(resp, SipFixtures.HEADERS, "127.0.0.1");
        WarningHeader w = (WarningHeader) resp.getHeader(WarningHeader.NAME);
        assertNotNull(w, "a Warning says why");
        assertEquals(399, w.getCode());
        String all = resp.toString();
        assertFalse(all.contains("Exception") || all.contains("java.") || all.contains("String.split"),
                "no exception or class name reaches the peer: " + all);
        assertEquals(400, resp.getStatusCode());
    }
}

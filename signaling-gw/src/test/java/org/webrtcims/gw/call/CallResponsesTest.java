package org.webrtcims.gw.call;

import org.junit.jupiter.api.Test;
import org.webrtcims.gw.sip.SipFixtures;

import javax.sip.ClientTransaction;
import javax.sip.ResponseEvent;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.Mockito.mock;

/** A failed in-dialog request of the gateway (issue #29: BYE → 478 from the proxy) is logged, kept and told to the browser. */
class CallResponsesTest {
    final List<Map<String, Object>> toBrowser = new ArrayList<>();
    final Call c = new Call("call-1", Direction.MO, "tok", "alice", "ue1@ims.lab", "ft", CallState.CONFIRMED);

    private ResponseEvent answer(Request req, int code, String phrase) throws Exception {
        Response r = SipFixtures.MESSAGES.createResponse(code, req);
        if (phrase != null) r.setReasonPhrase(phrase);
        return new ResponseEvent(new Object(), mock(ClientTransaction.class), null, r);
    }

    @Test
    void aByeAnswered478IsInTheFlowTheCallRecordAndTheBrowsersEvents() throws Exception {
        CallResponses h = new CallResponses(c, (token, msg) -> toBrowser.add(msg));
        Request bye = SipFixtures.request(Request.BYE, "ue1", "call-1", "ft", "tt", 2, null);
        h.sending(bye);
        h.onResponse(answer(bye, 478, "Unresolvable destination"));
        assertTrue(c.sipFlow().toString().contains("478"), "the flow records the status: " + c.sipFlow());
        assertEquals(List.of("BYE 478 Unresolvable destination"), c.failedRequests());
        assertEquals(1, toBrowser.size(), "the browser is told: " + toBrowser);
        Map<String, Object> m = toBrowser.get(0);
        assertEquals("sip-failure", m.get("type"));
        assertEquals("call-1", m.get("callId"));
        assertEquals("BYE", m.get("method"));
        assertEquals(478, m.get("sipCode"));
        assertEquals("Unresolvable destination", m.get("reason"));
    }

    @Test
    void anUnansweredReinviteIsReportedAs408AndSuccessesAndCancelsAreNot() throws Exception {
        CallResponses reinvite = new CallResponses(c, (token, msg) -> toBrowser.add(msg));
        reinvite.sending(SipFixtures.request(Request.INVITE, "ue1", "call-1", "ft", "tt", 3, null));
        reinvite.onTimeout();
        assertEquals(List.of("INVITE 408 no response"), c.failedRequests());
        assertEquals(408, toBrowser.get(0).get("sipCode"));

        CallResponses update = new CallResponses(c, (token, msg) -> toBrowser.add(msg));
        Request upd = SipFixtures.request(Request.UPDATE, "ue1", "call-1", "ft", "tt", 4, null);
        update.sending(upd);
        update.onResponse(answer(upd, 200, null));
        CallResponses cancel = new CallResponses(c, (token, msg) -> toBrowser.add(msg));
        Request can = SipFixtures.request(Request.CANCEL, "ue1", "call-1", "ft", null, 1, null);
        cancel.sending(can);
        cancel.onResponse(answer(can, 481, null));
        CallResponses initial = new CallResponses(c, (token, msg) -> toBrowser.add(msg));
        Request inv = SipFixtures.request(Request.INVITE, "ue1", "call-1", "ft", null, 1, null);
        initial.sending(inv);
        initial.onResponse(answer(inv, 486, null)); // the initial INVITE's final ends the call through its own path
        assertEquals(1, toBrowser.size(), "only the re-INVITE's timeout was reported: " + toBrowser);
    }
}

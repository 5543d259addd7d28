package org.webrtcims.gw.api;

import org.junit.jupiter.api.Test;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.webrtcims.gw.call.FailoverNotes;
import org.webrtcims.gw.sip.RegistrationClient;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;

/**
 * The logout of a session whose gateway died (docs/scale-out.md, gateway failover): a live gateway answers it once
 * with the calls another gateway ended for it; any other unknown token stays 401 `bad-token`, and without the
 * failover (no FailoverNotes bean) nothing changes.
 */
class FailoverLogoutTest {
    private MockMvc mvc(SessionRegistry sessions, FailoverNotes notes) {
        SessionController c = new SessionController(sessions, mock(RegistrationClient.class), mock(TurnCredentials.class));
        if (notes != null) c.setFailoverNotes(notes);
        return MockMvcBuilders.standaloneSetup(c).setControllerAdvice(new ApiErrors()).build();
    }

    @Test
    void aDeadGatewaysTokenLearnsItsEndedCallsOnceOthersStay401() throws Exception {
        SessionRegistry sessions = mock(SessionRegistry.class);
        when(sessions.byToken("g1.dead")).thenReturn(Optional.empty());
        when(sessions.byToken("g1.unknown")).thenReturn(Optional.empty());
        FailoverNotes notes = mock(FailoverNotes.class);
        when(notes.takeEnded("g1.dead")).thenReturn(List.of(Map.of("callId", "c1", "reason", "gateway-failed")), List.of());
        when(notes.takeEnded("g1.unknown")).thenReturn(List.of());
        MockMvc mvc = mvc(sessions, notes);

        var first = mvc.perform(delete("/api/v1/sessions/current").header("Authorization", "Bearer g1.dead")).andReturn().getResponse();
        assertEquals(200, first.getStatus(), "the dead session's logout is answered: " + first.getContentAsString());
        assertTrue(first.getContentAsString().contains("\"callId\":\"c1\"") && first.getContentAsString().contains("\"reason\":\"gateway-failed\""),
                "its body names the ended call and why: " + first.getContentAsString());
        var again = mvc.perform(delete("/api/v1/sessions/current").header("Authorization", "Bearer g1.dead")).andReturn().getResponse();
        assertEquals(401, again.getStatus(), "told once: then an unknown token like any other");
        var unknown = mvc.perform(delete("/api/v1/sessions/current").header("Authorization", "Bearer g1.unknown")).andReturn().getResponse();
        assertEquals(401, unknown.getStatus(), "a token with nothing ended: 401");
        assertTrue(unknown.getContentAsString().contains("bad-token"), unknown.getContentAsString());
    }

    @Test
    void withoutTheFailoverAnUnknownTokenIs401() throws Exception {
        SessionRegistry sessions = mock(SessionRegistry.class);
        when(sessions.byToken("g1.dead")).thenReturn(Optional.empty());
        var r = mvc(sessions, null).perform(delete("/api/v1/sessions/current").header("Authorization", "Bearer g1.dead")).andReturn().getResponse();
        assertEquals(401, r.getStatus(), r.getContentAsString());
    }
}

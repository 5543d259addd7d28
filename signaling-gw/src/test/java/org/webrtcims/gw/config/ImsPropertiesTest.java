package org.webrtcims.gw.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The IMS side's defaults that the integration tests do not wait for: faults.test runs the "UE never answers" case on
 * a gateway of its own with a 4 s INVITE timeout, so the shipped 30 s is checked here.
 */
class ImsPropertiesTest {
    @Test
    void inviteTimeoutDefaultsToThirtySeconds() {
        assertEquals(30000, new ImsProperties().getInviteTimeoutMs(),
            "lab.ims.invite-timeout-ms: the gateway waits 30 s for a final answer to its INVITE unless configured (docs/security.md \"Faults\")");
    }
}

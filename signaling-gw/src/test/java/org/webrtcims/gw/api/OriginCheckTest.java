package org.webrtcims.gw.api;

import org.junit.jupiter.api.Test;
import org.webrtcims.gw.config.GatewayProperties;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The Origin allowlist: the gateway's own origin, the configured ones, nothing else; and the loopback check. */
class OriginCheckTest {
    @Test
    void ownOriginAndConfiguredOnesPassOthersDoNot() {
        GatewayProperties props = new GatewayProperties();
        props.getApi().setAllowedOrigins(List.of("https://lab.example:8443", " "));
        OriginCheck check = new OriginCheck(props);
        assertTrue(check.allows("http://127.0.0.1:8088", "http", "127.0.0.1:8088"));
        assertTrue(check.allows("HTTP://LOCALHOST", "http", "localhost:80"));
        assertTrue(check.allows("https://lab.example:8443", "http", "127.0.0.1:8088"));
        assertFalse(check.allows("http://evil.example", "http", "127.0.0.1:8088"));
        assertFalse(check.allows("http://127.0.0.1:9999", "http", "127.0.0.1:8088"));
        assertFalse(check.allows("null", "http", "127.0.0.1:8088"));
        assertFalse(check.allows("http://127.0.0.1:8088", "http", null));
    }

    @Test
    void loopbackAddressesOnly() {
        assertTrue(LabController.isLoopback("127.0.0.1"));
        assertTrue(LabController.isLoopback("127.3.2.1"));
        assertTrue(LabController.isLoopback("0:0:0:0:0:0:0:1"));
        assertTrue(LabController.isLoopback("::1"));
        assertFalse(LabController.isLoopback("10.0.0.1"));
        assertFalse(LabController.isLoopback("128.0.0.1"));
        assertFalse(LabController.isLoopback(null));
        assertTrue(LabController.isThisHost("198.18.0.1", "198.18.0.1"), "a client on the gateway's own bound address");
        assertTrue(LabController.isThisHost("127.0.0.1", "198.18.0.1"));
        assertFalse(LabController.isThisHost("198.18.0.2", "198.18.0.1"), "the browser namespace is another host");
        assertFalse(LabController.isThisHost(null, "198.18.0.1"));
    }
}

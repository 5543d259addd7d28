package org.webrtcims.gw.api;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.webrtcims.gw.config.GatewayProperties;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

class TurnCredentialsTest {
    @TempDir Path dir;

    private GatewayProperties props(List<String> uris, String secretFile) {
        GatewayProperties p = new GatewayProperties();
        p.getWebrtc().setTurnUris(uris);
        p.getWebrtc().setTurnSecretFile(secretFile);
        return p;
    }

    @Test
    void offByDefault() {
        TurnCredentials t = new TurnCredentials(new GatewayProperties());
        assertFalse(t.enabled());
        assertTrue(t.iceServers("carol", 0).isEmpty());
    }

    @Test
    void restApiCredentials() throws Exception {
        Path f = dir.resolve("secret");
        Files.writeString(f, "north\n");
        TurnCredentials t = new TurnCredentials(props(List.of("turn:198.18.1.1:3478?transport=udp"), f.toString()));
        // the session's expiry (ms) -> the user name's (s)
        List<Map<String, Object>> servers = t.iceServers("carol", 1_700_003_600_123L).orElseThrow();
        assertEquals(1, servers.size());
        assertEquals(List.of("turn:198.18.1.1:3478?transport=udp"), servers.get(0).get("urls"));
        assertEquals("1700003600:carol", servers.get(0).get("username"));
        // printf %s 1700003600:carol | openssl dgst -sha1 -hmac north -binary | base64
        assertEquals("smlVqvGOa0QLDypQa4oTCFRCgpU=", servers.get(0).get("credential"));
    }

    @Test
    void badConfigurationIsRefusedWithTheOptionsName() throws Exception {
        Path f = dir.resolve("secret");
        Files.writeString(f, "s3");
        Path empty = dir.resolve("empty");
        Files.writeString(empty, "\n");
        assertTrue(assertThrows(IllegalStateException.class, () -> new TurnCredentials(props(List.of("turn:h:3478"), "")))
                .getMessage().startsWith("lab.webrtc.turn-secret-file is required"));
        assertTrue(assertThrows(IllegalStateException.class, () -> new TurnCredentials(props(List.of("turn:h:3478"), dir.resolve("none").toString())))
                .getMessage().startsWith("lab.webrtc.turn-secret-file: cannot read"));
        assertTrue(assertThrows(IllegalStateException.class, () -> new TurnCredentials(props(List.of("turn:h:3478"), empty.toString())))
                .getMessage().contains("is empty"));
        assertTrue(assertThrows(IllegalStateException.class, () -> new TurnCredentials(props(List.of("http://h"), f.toString())))
                .getMessage().startsWith("lab.webrtc.turn-uris:"));
    }
}

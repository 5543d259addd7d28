package org.webrtcims.gw.api;

import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.junit.jupiter.api.Assertions.*;

/** `/actuator/**` answers clients on the gateway's host only; other paths are not this filter's business. */
class MetricsAccessTest {
    private MockHttpServletResponse get(String path, String remote) throws Exception {
        return get(path, remote, "127.0.0.1");
    }

    private MockHttpServletResponse get(String path, String remote, String local) throws Exception {
        MockHttpServletRequest req = new MockHttpServletRequest("GET", path);
        req.setRemoteAddr(remote);
        req.setLocalAddr(local);
        MockHttpServletResponse res = new MockHttpServletResponse();
        MockFilterChain chain = new MockFilterChain();
        new MetricsAccess().doFilter(req, res, chain);
        if (chain.getRequest() == null) assertNotEquals(200, res.getStatus());
        return res;
    }

    @Test
    void loopbackClientsReachTheScrape() throws Exception {
        assertEquals(200, get("/actuator/prometheus", "127.0.0.1").getStatus());
        assertEquals(200, get("/actuator/prometheus", "0:0:0:0:0:0:0:1").getStatus());
        // the harness in the browser topology: the gateway bound to 198.18.0.1, scraped from that address
        assertEquals(200, get("/actuator/prometheus", "198.18.0.1", "198.18.0.1").getStatus());
        assertEquals(403, get("/actuator/prometheus", "198.18.0.2", "198.18.0.1").getStatus());
    }

    @Test
    void othersGet403LoopbackOnly() throws Exception {
        MockHttpServletResponse res = get("/actuator/prometheus", "198.18.0.2");
        assertEquals(403, res.getStatus());
        assertTrue(res.getContentAsString().contains("\"loopback-only\""), res.getContentAsString());
        assertEquals(403, get("/actuator", "10.0.0.7").getStatus());
    }

    @Test
    void otherPathsPass() throws Exception {
        assertEquals(200, get("/api/v1/health", "198.18.0.2").getStatus());
    }
}

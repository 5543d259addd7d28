package org.webrtcims.gw.api;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.call.CallFailure;
import org.webrtcims.gw.call.RelayStatus;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Health and the lab's view of rtpengine (used by teardown checks). */
@RestController
public class LabController {
    private final RelayStatus relays;
    private final GatewayProperties props;
    private final SessionRegistry sessions;

    private final org.webrtcims.gw.call.PcscfStatus pcscf;

    public LabController(RelayStatus relays, GatewayProperties props, SessionRegistry sessions,
                         org.webrtcims.gw.call.PcscfStatus pcscf) {
        this.relays = relays;
        this.props = props;
        this.sessions = sessions;
        this.pcscf = pcscf;
    }

    /**
     * `{"status": "up"}` (200) while at least one rtpengine answers its ng ping, `{"status": "down"}` (503) when
     * none does (no call can get media). The details (the gateway's SIP address, the IMS proxy and transport, each
     * rtpengine's state and calls) only for a caller with a live session token or on the gateway's host (the lab's
     * readiness checks, tests and tools): others learn nothing of the topology (docs/security.md).
     */
    @GetMapping("/api/v1/health")
    public ResponseEntity<Map<String, Object>> health(@RequestHeader(value = "Authorization", required = false) String auth,
                                                      jakarta.servlet.http.HttpServletRequest request) {
        Map<String, Boolean> pongs = relays.pingEach();
        long up = pongs.values().stream().filter(b -> b).count();
        boolean healthy = up > 0;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", healthy ? "up" : "down");
        if (isThisHost(request.getRemoteAddr(), request.getLocalAddr()) || hasLiveToken(auth)) {
            m.put("sip", new org.webrtcims.gw.config.HostPort(props.getSip().getHost(), props.getSip().getPort()).toString());
            m.put("imsProxy", props.getIms().getProxy());
            // the P-CSCF target in use (lab.ims.proxy resolved: RFC 3263 for a domain) and the transport toward it
            m.put("imsPcscf", pcscf.target());
            m.put("imsTransport", pcscf.transport());
            m.put("rtpengine", up == pongs.size() ? "ok" : up == 0 ? "down" : "degraded");
            Map<String, Integer> calls = relays.callsPerRelay();
            Map<String, Object> each = new LinkedHashMap<>();
            pongs.forEach((ng, pong) -> each.put(ng, Map.of("status", pong ? "ok" : "down", "calls", calls.getOrDefault(ng, 0))));
            m.put("rtpengines", each);
        }
        return ResponseEntity.status(healthy ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE).body(m);
    }

    private boolean hasLiveToken(String auth) {
        String token = Bearer.token(auth);
        return token != null && sessions.byToken(token).isPresent();
    }

    /**
     * Every Call-ID rtpengine holds: clients on this host only (the lab's own teardown checks), 403 otherwise.
     * "This host" = a loopback address, or the very address the request came in on (a client on the
     * gateway's machine that reaches it on its bound, non-loopback address, as the lab's harness does in
     * the browser topology of docs/media.md).
     */
    @GetMapping("/api/v1/rtpengine/sessions")
    public Map<String, Object> rtpengineSessions(jakarta.servlet.http.HttpServletRequest request) {
        if (!isThisHost(request.getRemoteAddr(), request.getLocalAddr())) {
            throw new ApiException(HttpStatus.FORBIDDEN, "loopback-only", "this endpoint answers clients on the gateway's host only");
        }
        try {
            List<String> ids = relays.sessions();
            return Map.of("count", ids.size(), "callIds", ids);
        } catch (CallFailure e) {
            throw new ApiException(HttpStatus.BAD_GATEWAY, e.code(), e.getMessage());
        }
    }

    /** A loopback client, or one whose address is the connection's own local address (same host). */
    static boolean isThisHost(String remote, String local) {
        return isLoopback(remote) || (remote != null && strip(remote).equals(strip(local)));
    }

    private static String strip(String address) {
        if (address == null) return "";
        return address.startsWith("[") && address.endsWith("]") ? address.substring(1, address.length() - 1) : address;
    }

    static boolean isLoopback(String address) {
        if (address == null) return false;
        String a = address.startsWith("[") && address.endsWith("]") ? address.substring(1, address.length() - 1) : address;
        return a.startsWith("127.") || a.equals("::1") || a.equals("0:0:0:0:0:0:0:1") || a.startsWith("::ffff:127.");
    }
}

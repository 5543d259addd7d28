package org.webrtcims.gw.api;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;

/**
 * `/actuator/**` (only `/actuator/prometheus` is exposed) answers clients on the gateway's host only, like
 * `/api/v1/rtpengine/sessions` (docs/security.md): the metrics name users' counts, call outcomes and the JVM's
 * state. Others get 403 `{code: loopback-only}`.
 */
@Component
public class MetricsAccess extends OncePerRequestFilter {
    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        String path = request.getRequestURI();
        return !(path.equals("/actuator") || path.startsWith("/actuator/"));
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (LabController.isThisHost(request.getRemoteAddr(), request.getLocalAddr())) {
            chain.doFilter(request, response);
            return;
        }
        response.setStatus(HttpServletResponse.SC_FORBIDDEN);
        response.setContentType("application/json");
        response.getWriter().write("{\"code\":\"loopback-only\",\"message\":\"this endpoint answers clients on the gateway's host only\"}");
    }
}

package org.webrtcims.gw.api;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;
import org.webrtcims.gw.config.GatewayProperties;

import java.io.IOException;
import java.net.URI;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The Origin allowlist of `/api/**` and `/ws`: a request that carries an `Origin` header passes only when
 * that origin is the gateway's own (scheme + the Host the request was sent to) or one of
 * `lab.api.allowed-origins`; others get 403 `{code: bad-origin}`. Requests without Origin (curl, loadgen,
 * Node) pass: Origin protects browsers from other sites' pages, it is no authentication.
 */
@Component
public class OriginCheck extends OncePerRequestFilter {
    private final Set<String> allowed;

    public OriginCheck(GatewayProperties props) {
        this.allowed = props.getApi().getAllowedOrigins().stream().map(OriginCheck::normalize)
                .filter(o -> !o.isEmpty()).collect(Collectors.toUnmodifiableSet());
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        String path = request.getRequestURI();
        return !(path.startsWith("/api/") || path.equals("/ws") || path.startsWith("/ws/"));
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String origin = request.getHeader("Origin");
        if (origin == null || allows(origin, request.getScheme(), request.getHeader("Host"))) {
            chain.doFilter(request, response);
            return;
        }
        response.setStatus(HttpServletResponse.SC_FORBIDDEN);
        response.setContentType("application/json");
        response.getWriter().write("{\"code\":\"bad-origin\",\"message\":\"Origin not allowed by lab.api.allowed-origins\"}");
    }

    boolean allows(String origin, String scheme, String host) {
        String o = normalize(origin);
        if (o.isEmpty()) return false;
        if (allowed.contains(o)) return true;
        return host != null && o.equals(normalize(scheme + "://" + host));
    }

    /** scheme://host:port, lower-case, the default port written out; "" when not an origin. */
    static String normalize(String origin) {
        try {
            URI u = new URI(origin.trim());
            if (u.getScheme() == null || u.getHost() == null) return "";
            String scheme = u.getScheme().toLowerCase(Locale.ROOT);
            int port = u.getPort() != -1 ? u.getPort() : scheme.equals("https") || scheme.equals("wss") ? 443 : 80;
            return scheme + "://" + u.getHost().toLowerCase(Locale.ROOT) + ":" + port;
        } catch (Exception e) {
            return "";
        }
    }
}

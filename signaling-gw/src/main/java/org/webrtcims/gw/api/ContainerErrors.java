package org.webrtcims.gw.api;

import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;
import org.springframework.boot.web.embedded.tomcat.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.stereotype.Component;

import java.io.IOException;
import java.io.Writer;

/**
 * What Tomcat refuses before any filter or `/error` can run — a request line it cannot parse (`GET /%`, an encoded
 * `/` or NUL in the path, `/..;/`), headers or a URI over its limits — is written by the host's error report valve:
 * here that valve answers the API's `{code, message}` JSON (no HTML page, no server name, no exception) with the
 * security headers of {@link SecurityHeaders}, so no answer of the HTTP port is in another shape.
 */
@Component
public class ContainerErrors implements WebServerFactoryCustomizer<TomcatServletWebServerFactory> {
    @Override
    public void customize(TomcatServletWebServerFactory factory) {
        factory.addContextCustomizers(context -> {
            if (context.getParent() instanceof StandardHost host) host.setErrorReportValveClass(JsonErrorReport.class.getName());
        });
    }

    /** Tomcat's error report valve with the API's error body. */
    public static class JsonErrorReport extends ErrorReportValve {
        static final String ALLOW = "GET, HEAD, POST, PUT, DELETE, OPTIONS";

        @Override
        protected void report(Request request, Response response, Throwable t) {
            int status = response.getStatus();
            // as Tomcat's own: only errors, only when nothing has been written yet
            if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) return;
            try {
                try {
                    if (status == 501) {
                        // a method Tomcat does not implement (CONNECT: this is no proxy) is the client's mistake,
                        // not a server failure: 405 with what the port serves (RFC 9110 §15.5.6)
                        status = 405;
                        response.setStatus(status);
                        response.setHeader("Allow", ALLOW);
                    }
                    response.setContentType("application/json");
                    response.setCharacterEncoding("UTF-8");
                    response.setHeader("Content-Security-Policy", SecurityHeaders.policy(null, false));
                    response.setHeader("X-Content-Type-Options", "nosniff");
                    response.setHeader("X-Frame-Options", "DENY");
                    response.setHeader("Referrer-Policy", "no-referrer");
                } catch (Throwable ignored) {
                    // the response is already committed: the body below is all that can still go
                }
                Writer w = response.getReporter();
                if (w == null) return;
                w.write("{\"code\":\"" + ApiErrors.codeOf(status) + "\",\"message\":\"" + ApiErrors.messageOf(status).replace("\"", "\\\"") + "\"}");
                response.finishResponse();
            } catch (IOException | IllegalStateException e) {
                // the client has gone: nothing to report to
            }
        }
    }
}

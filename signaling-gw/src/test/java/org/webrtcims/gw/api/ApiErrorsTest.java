package org.webrtcims.gw.api;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.RequestBuilder;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.call.RelayStatus;
import org.webrtcims.gw.sip.RegistrationClient;

import java.util.Map;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.*;

/**
 * Every REST failure is `{code, message}` as JSON with its status: the API's own refusals and Spring MVC's (wrong
 * method, media type, Accept, unreadable or too-deep JSON, unknown path), the container's forwards to `/error` and
 * `/error` asked directly; never a 5xx for the client's input, never a Java class or exception name.
 */
class ApiErrorsTest {
    /** A Java class or exception name as a body could leak it: `SomethingException`, `java.`, `org.springframework`. */
    private static final Pattern CLASS_NAME = Pattern.compile("[A-Z][A-Za-z]+(Exception|Error|Constraints)\\b|\\bjava\\.|org\\.springframework|com\\.fasterxml|\\.getMax");

    private final RelayStatus rtp = mock(RelayStatus.class);
    private MockMvc mvc;

    @BeforeEach
    void setUp() {
        when(rtp.pingEach()).thenReturn(Map.of("127.0.0.1:2223", true));
        when(rtp.callsPerRelay()).thenReturn(Map.of());
        SessionRegistry sessions = mock(SessionRegistry.class);
        mvc = MockMvcBuilders
                .standaloneSetup(new SessionController(sessions, mock(RegistrationClient.class), mock(TurnCredentials.class)),
                        new LabController(rtp, new GatewayProperties(), sessions, org.mockito.Mockito.mock(org.webrtcims.gw.call.PcscfStatus.class)), new ErrorEndpoint())
                .setControllerAdvice(new ApiErrors())
                .addFilters(new SecurityHeaders())
                .build();
    }

    private MockHttpServletResponse run(RequestBuilder request, int status, String code) throws Exception {
        var result = mvc.perform(request).andReturn();
        MockHttpServletResponse r = result.getResponse();
        String body = r.getContentAsString();
        var q = result.getRequest();
        String what = q.getMethod() + " " + q.getRequestURI() + " (Content-Type " + q.getContentType() + ", Accept " + q.getHeader("Accept") + ")";
        assertEquals(status, r.getStatus(), "status of " + what + ", body " + body);
        assertTrue(String.valueOf(r.getContentType()).startsWith("application/json"), "JSON error body, got " + r.getContentType() + ": " + body);
        assertTrue(body.contains("\"code\":\"" + code + "\""), "code " + code + " in " + body);
        assertTrue(body.contains("\"message\":\""), "a message in " + body);
        assertFalse(CLASS_NAME.matcher(body).find(), "a class or exception name in " + body);
        assertEquals("nosniff", r.getHeader("X-Content-Type-Options"), "security headers on the error too: " + body);
        return r;
    }

    @Test
    void loginWithoutJsonContentTypeIs415() throws Exception {
        for (String type : new String[] {"text/plain", "application/x-www-form-urlencoded", "application/xml",
                "multipart/form-data; boundary=x", "garbage", "a/b/c;;=", ""}) {
            var request = post("/api/v1/sessions").content("{\"user\":\"alice\",\"password\":\"x\"}");
            if (!type.isEmpty()) request.header("Content-Type", type);
            var r = run(request, 415, "unsupported-media-type");
            assertTrue(String.valueOf(r.getHeader("Accept")).contains("application/json"), "415 says what it accepts: " + r.getHeader("Accept"));
        }
    }

    @Test
    void wrongMethodIs405WithAllow() throws Exception {
        assertTrue(run(get("/api/v1/sessions"), 405, "method-not-allowed").getHeader("Allow").contains("POST"));
        assertTrue(run(put("/api/v1/sessions"), 405, "method-not-allowed").getHeader("Allow").contains("POST"));
        assertTrue(run(post("/api/v1/health"), 405, "method-not-allowed").getHeader("Allow").contains("GET"));
        assertTrue(run(delete("/api/v1/health"), 405, "method-not-allowed").getHeader("Allow").contains("GET"));
    }

    @Test
    void acceptOnlyXmlIs406AnsweredInJson() throws Exception {
        run(get("/api/v1/health").accept(MediaType.APPLICATION_XML), 406, "not-acceptable");
    }

    @Test
    void malformedAndTooDeepJsonAre400() throws Exception {
        run(post("/api/v1/sessions").contentType(MediaType.APPLICATION_JSON).content("{\"user\":"), 400, "bad-json");
        run(post("/api/v1/sessions").contentType(MediaType.APPLICATION_JSON).content("[1,2]"), 400, "bad-json");
        String deep = "{\"user\":" + "[".repeat(3000) + "]".repeat(3000) + "}";
        var r = run(post("/api/v1/sessions").contentType(MediaType.APPLICATION_JSON).content(deep), 400, "bad-json");
        assertTrue(r.getContentAsString().contains("nested"), "the message says the limit: " + r.getContentAsString());
        run(post("/api/v1/sessions").contentType(MediaType.APPLICATION_JSON), 400, "bad-message");
    }

    @Test
    void unknownPathIs404() throws Exception {
        run(get("/api/v1/nothing-here"), 404, "not-found");
        run(post("/no/such/thing").contentType(MediaType.APPLICATION_JSON).content("{}"), 404, "not-found");
    }

    @Test
    void errorPathAskedDirectlyIs404AndForwardsKeepTheirStatus() throws Exception {
        run(get("/error"), 404, "not-found");
        run(post("/error"), 404, "not-found");
        run(get("/error").accept(MediaType.APPLICATION_XML), 404, "not-found");
        run(get("/error").requestAttr("jakarta.servlet.error.status_code", 400), 400, "bad-request");
        run(get("/error").requestAttr("jakarta.servlet.error.status_code", 431), 431, "headers-too-large");
        run(get("/error").requestAttr("jakarta.servlet.error.status_code", 999), 404, "not-found");
    }

    @Test
    void apiExceptionsKeepStatusAndCode() throws Exception {
        var r = run(get("/api/v1/sessions/current"), 401, "bad-token");
        assertTrue(r.getContentAsString().contains("Authorization: Bearer"), r.getContentAsString());
    }

    @Test
    void unexpectedFailuresSayNothingOfTheException() {
        var r = new ApiErrors().other(new IllegalStateException("Cannot invoke \"String.split(String)\" because \"value\" is null"));
        assertEquals(HttpStatus.INTERNAL_SERVER_ERROR, r.getStatusCode());
        assertEquals(Map.of("code", "internal", "message", "the gateway failed to handle this request"), r.getBody());
    }

    @Test
    void aClientThatWentAwayIsNotLoggedAsTheGatewaysFailure() {
        ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(ApiErrors.class);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> seen = new ch.qos.logback.core.read.ListAppender<>();
        seen.start();
        logger.addAppender(seen);
        try {
            new ApiErrors().clientGone(new org.springframework.web.context.request.async.AsyncRequestNotUsableException(
                    "ServletOutputStream failed to flush: java.io.IOException: Connection reset by peer"));
            assertTrue(seen.list.stream().noneMatch(ev -> ev.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.WARN)),
                    "a connection reset by the client is no WARN with a stack trace: " + seen.list);
        } finally {
            logger.detachAppender(seen);
        }
    }
}

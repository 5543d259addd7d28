package org.webrtcims.gw.api;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.web.servlet.resource.NoResourceFoundException;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Every REST failure is `{code, message}` with its status, and an unexpected one no stack trace. */
class ApiErrorsTest {
    ApiErrors errors = new ApiErrors();

    @Test
    void apiExceptionsKeepStatusAndCode() {
        var r = errors.api(new ApiException(HttpStatus.UNAUTHORIZED, "bad-token", "a valid token is required"));
        assertEquals(HttpStatus.UNAUTHORIZED, r.getStatusCode());
        assertEquals(Map.of("code", "bad-token", "message", "a valid token is required"), r.getBody());
    }

    @Test
    void unknownResourcesAndUnexpectedFailuresAreShortBodies() {
        assertEquals(Map.of("code", "not-found", "message", "no such resource"),
                errors.notFound(new NoResourceFoundException(HttpMethod.GET, "x")).getBody());
        var r = errors.other(new IllegalStateException((String) null));
        assertEquals(HttpStatus.INTERNAL_SERVER_ERROR, r.getStatusCode());
        assertEquals(Map.of("code", "internal", "message", "IllegalStateException: null"), r.getBody());
    }
}

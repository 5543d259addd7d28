package org.webrtcims.gw.api;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.context.request.async.AsyncRequestNotUsableException;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every REST failure is `{code, message}` with a fitting status, as `application/json` whatever the request's
 * `Accept` said; never a stack trace, never an exception's class or text. Spring MVC's own failures (wrong
 * method, media type, unreadable body, unknown path, ...) arrive through {@link ResponseEntityExceptionHandler},
 * which keeps their status and headers (`Allow` with a 405, `Accept` with a 415); what a request did wrong is
 * said by {@link #codeOf}/{@link #messageOf}. Errors outside Spring MVC (the servlet container's) go to
 * {@link ErrorEndpoint}, which answers the same shape.
 */
@RestControllerAdvice
public class ApiErrors extends ResponseEntityExceptionHandler {
    private static final Logger log = LoggerFactory.getLogger(ApiErrors.class);

    @ExceptionHandler(ApiException.class)
    ResponseEntity<Object> api(ApiException e) {
        return body(e.status(), new HttpHeaders(), e.code(), e.getMessage());
    }

    /**
     * The client went away while its response was being written (its connection reset: a browser closed, a gateway
     * host's HAProxy cut it): nothing can be answered and it is no fault of the gateway, so one debug line, no trace.
     */
    @ExceptionHandler(AsyncRequestNotUsableException.class)
    void clientGone(AsyncRequestNotUsableException e) {
        log.debug("the client went away before its response was written: {}", e.getMessage());
    }

    /** Anything else: a bug of the gateway; logged with its stack trace once, the client only learns that. */
    @ExceptionHandler(Exception.class)
    ResponseEntity<Object> other(Exception e) {
        log.warn("request failed", e);
        return body(HttpStatus.INTERNAL_SERVER_ERROR, new HttpHeaders(), "internal", messageOf(500));
    }

    /** Not JSON, not the expected shape, or nested deeper than Jackson allows (StreamReadConstraints): 400. */
    @Override
    protected ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException ex, HttpHeaders headers,
                                                                  HttpStatusCode status, WebRequest request) {
        return body(HttpStatus.BAD_REQUEST, new HttpHeaders(), "bad-json",
                "request body is not the expected JSON (valid JSON of the documented shape, nested at most 1000 deep)");
    }

    /** Spring MVC's own exceptions: their status and headers, our body. */
    @Override
    protected ResponseEntity<Object> handleExceptionInternal(Exception ex, Object body, HttpHeaders headers,
                                                             HttpStatusCode status, WebRequest request) {
        HttpHeaders out = new HttpHeaders();
        if (headers != null) out.putAll(headers);
        if (status.is5xxServerError()) log.warn("request failed", ex);
        return body(status, out, codeOf(status.value()), messageOf(status.value()));
    }

    /**
     * The stable error code and what a client reads for a status the framework (or the container) chose: fixed
     * sentences, so nothing of the framework's text leaks.
     */
    private record StatusError(String code, String message) { }

    private static final Map<Integer, StatusError> BY_STATUS = Map.ofEntries(
            Map.entry(400, new StatusError("bad-request", "the request is malformed")),
            Map.entry(401, new StatusError("bad-token", "a valid 'Authorization: Bearer <token>' is required")),
            Map.entry(403, new StatusError("forbidden", "not allowed")),
            Map.entry(404, new StatusError("not-found", "no such resource")),
            Map.entry(405, new StatusError("method-not-allowed", "method not allowed here (see the Allow header)")),
            Map.entry(406, new StatusError("not-acceptable",
                    "this resource answers application/json (or the web client's own files) only")),
            Map.entry(408, new StatusError("timeout", "the request took too long")),
            Map.entry(413, new StatusError("too-large", "the request is too large")),
            Map.entry(414, new StatusError("uri-too-long", "the request URI is too long")),
            Map.entry(415, new StatusError("unsupported-media-type", "the body must be JSON with 'Content-Type: application/json'")),
            Map.entry(431, new StatusError("headers-too-large", "the request's headers are too large")),
            Map.entry(503, new StatusError("unavailable", "the gateway cannot serve this now")));
    private static final StatusError SERVER_FAILED = new StatusError("internal", "the gateway failed to handle this request");

    private static StatusError statusError(int status) {
        return BY_STATUS.getOrDefault(status, status >= 500 ? SERVER_FAILED : BY_STATUS.get(400));
    }

    /** The stable error code of a status the framework (or the container) chose. */
    static String codeOf(int status) { return statusError(status).code(); }

    /** What a client reads for that status. */
    static String messageOf(int status) { return statusError(status).message(); }

    static ResponseEntity<Object> body(HttpStatusCode status, HttpHeaders headers, String code, String message) {
        Map<String, String> b = new LinkedHashMap<>();
        b.put("code", code);
        b.put("message", message == null ? "" : message);
        // A preset concrete Content-Type is written as is: a request that accepts only e.g. XML (the 406 case)
        // still gets its error as JSON instead of a second, bodyless failure.
        return ResponseEntity.status(status).headers(headers).contentType(MediaType.APPLICATION_JSON).body(b);
    }
}

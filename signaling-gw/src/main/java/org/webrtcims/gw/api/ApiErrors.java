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

    /** The stable error code of a status the framework (or the container) chose. */
    static String codeOf(int status) {
        return switch (status) {
            case 400 -> "bad-request";
            case 401 -> "bad-token";
            case 403 -> "forbidden";
            case 404 -> "not-found";
            case 405 -> "method-not-allowed";
            case 406 -> "not-acceptable";
            case 408 -> "timeout";
            case 413 -> "too-large";
            case 414 -> "uri-too-long";
            case 415 -> "unsupported-media-type";
            case 431 -> "headers-too-large";
            case 503 -> "unavailable";
            default -> status >= 500 ? "internal" : "bad-request";
        };
    }

    /** What a client reads for that status: fixed sentences, so nothing of the framework's text leaks. */
    static String messageOf(int status) {
        return switch (status) {
            case 400 -> "the request is malformed";
            case 401 -> "a valid 'Authorization: Bearer <token>' is required";
            case 403 -> "not allowed";
            case 404 -> "no such resource";
            case 405 -> "method not allowed here (see the Allow header)";
            case 406 -> "this resource answers application/json (or the web client's own files) only";
            case 408 -> "the request took too long";
            case 413 -> "the request is too large";
            case 414 -> "the request URI is too long";
            case 415 -> "the body must be JSON with 'Content-Type: application/json'";
            case 431 -> "the request's headers are too large";
            case 503 -> "the gateway cannot serve this now";
            default -> status >= 500 ? "the gateway failed to handle this request" : "the request is malformed";
        };
    }

    static ResponseEntity<Object> body(HttpStatusCode status, HttpHeaders headers, String code, String message) {
        Map<String, String> b = new LinkedHashMap<>();
        b.put("code", code);
        b.put("message", message == null ? "" : message);
        // A preset concrete Content-Type is written as is: a request that accepts only e.g. XML (the 406 case)
        // still gets its error as JSON instead of a second, bodyless failure.
        return ResponseEntity.status(status).headers(headers).contentType(MediaType.APPLICATION_JSON).body(b);
    }
}

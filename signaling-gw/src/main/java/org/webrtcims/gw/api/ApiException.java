package org.webrtcims.gw.api;

import org.springframework.http.HttpStatus;

/** A REST request refused with an HTTP status and a stable error code. */
public class ApiException extends RuntimeException {
    private final HttpStatus status;
    private final String code;

    public ApiException(HttpStatus status, String code, String message) {
        super(message);
        this.status = status;
        this.code = code;
    }

    public HttpStatus status() { return status; }
    public String code() { return code; }
}

package org.webrtcims.gw.api;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.web.servlet.error.ErrorController;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Spring Boot's `/error` (in place of its BasicErrorController, which answered `GET /error` itself with 500 and
 * "status 999"): the servlet container forwards here what failed outside Spring MVC (a filter, Tomcat's own 4xx),
 * and the answer is the API's `{code, message}` with the original status. Asked for directly (no error in the
 * request) it is an unknown path: 404.
 */
@RestController
public class ErrorEndpoint implements ErrorController {
    @RequestMapping("${server.error.path:/error}")
    public ResponseEntity<Object> error(HttpServletRequest request) {
        int status = statusOf(request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE));
        return ApiErrors.body(HttpStatus.valueOf(status), new HttpHeaders(), ApiErrors.codeOf(status), ApiErrors.messageOf(status));
    }

    /** The forwarded error's status; 404 when there is none (a direct request) or it is no HTTP error status. */
    static int statusOf(Object attribute) {
        if (attribute instanceof Integer code && code >= 400 && code <= 599 && HttpStatus.resolve(code) != null) return code;
        return 404;
    }
}

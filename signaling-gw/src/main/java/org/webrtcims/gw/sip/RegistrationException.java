package org.webrtcims.gw.sip;

/** Why a REGISTER did not succeed, in terms the browser API maps to error codes. */
public class RegistrationException extends RuntimeException {
    public enum Kind { AUTH_FAILED, TIMEOUT, REJECTED, POOL_EXHAUSTED }

    private final Kind kind;
    private final int sipCode;

    public RegistrationException(Kind kind, int sipCode, String message) {
        super(message);
        this.kind = kind;
        this.sipCode = sipCode;
    }

    public Kind kind() { return kind; }
    public int sipCode() { return sipCode; }
}

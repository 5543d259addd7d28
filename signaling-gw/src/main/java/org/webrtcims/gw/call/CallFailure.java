package org.webrtcims.gw.call;

/** A browser request the call layer refused; {@code code} is the stable API error code. */
public class CallFailure extends RuntimeException {
    private final String code;

    public CallFailure(String code, String message) {
        super(message);
        this.code = code;
    }

    public String code() { return code; }
}

package org.webrtcims.gw.call;

/** A browser request the call layer refused; {@code code} is the stable API error code. */
public class CallFailure extends RuntimeException {
    private final String code;
    private final String callId;

    public CallFailure(String code, String message) {
        this(code, message, null);
    }

    /** A failure of a call the browser already knows (it got `calling`), so the error names it. */
    public CallFailure(String code, String message, String callId) {
        super(message);
        this.code = code;
        this.callId = callId;
    }

    public String code() { return code; }

    public String callId() { return callId; }
}

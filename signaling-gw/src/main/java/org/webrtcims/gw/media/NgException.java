package org.webrtcims.gw.media;

/** A failed ng-protocol exchange with rtpengine. */
public class NgException extends Exception {
    public enum Kind {
        /** No reply after all retransmissions. */
        TIMEOUT,
        /** rtpengine replied {@code result: error}; the message is its {@code error-reason}. */
        ERROR_RESULT,
        /** The reply (or our request) was not valid ng protocol. */
        PROTOCOL,
        /**
         * Not sent: rtpengine stopped answering earlier and has not answered a ping since (RtpEngineBreaker),
         * so the command fails at once instead of waiting out its retransmissions.
         */
        UNAVAILABLE
    }

    private final Kind kind;

    public NgException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}

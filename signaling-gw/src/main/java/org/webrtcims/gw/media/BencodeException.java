package org.webrtcims.gw.media;

/** Malformed bencode input, or a value that bencode cannot represent. */
public class BencodeException extends RuntimeException {
    public BencodeException(String message) {
        super(message);
    }
}

package org.webrtcims.gw.call;

import java.util.Optional;

/** Finds the browser session of a logged-in user, for calls the IMS side sends to that user. */
public interface UserDirectory {
    Optional<String> sessionOf(String user);
}

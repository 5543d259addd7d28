package org.webrtcims.gw.sip;

import org.springframework.stereotype.Component;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The user parts of the gateway's registered Contacts (docs/security.md "SIP sources"): one random user part per
 * registration ("w" + 32 hex digits from SecureRandom), not the login name, so a scanner cannot guess whom an
 * INVITE to the gateway's port would reach, and a P-CSCF that matches an MT or MO request by its Contact finds the
 * right registration even when two users register from the same host:port. {@link RegistrationLifecycle} issues one
 * at a new registration and releases it when the registration ends; the MT side maps an INVITE's Request-URI user
 * back to the login with {@link #loginOf}.
 */
@Component
public class ContactUsers {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int BYTES = 16;

    private final Map<String, String> loginByContact = new ConcurrentHashMap<>();

    /** A new random contact user part for a registration of {@code login}. */
    public String issue(String login) {
        if (login == null || login.isEmpty()) throw new IllegalArgumentException("a contact user needs a login");
        while (true) {
            byte[] b = new byte[BYTES];
            RANDOM.nextBytes(b);
            String user = "w" + HexFormat.of().formatHex(b);
            if (loginByContact.putIfAbsent(user, login) == null) return user;
        }
    }

    /**
     * Maps a contact user part issued before to {@code login} again (a second session's REGISTER that kept the
     * binding's contact succeeded after the first session's logout had released it).
     */
    public void keep(String contactUser, String login) {
        loginByContact.put(contactUser, login);
    }

    /** Forgets a contact user part: requests to it are then answered as to any unknown user. */
    public void release(String contactUser) {
        if (contactUser != null) loginByContact.remove(contactUser);
    }

    /** The login whose live registration has this contact user part (empty for any other user part). */
    public Optional<String> loginOf(String contactUser) {
        return contactUser == null ? Optional.empty() : Optional.ofNullable(loginByContact.get(contactUser));
    }

    /** How many contact user parts are live (one per registration, also while one is being registered). */
    public int size() { return loginByContact.size(); }
}

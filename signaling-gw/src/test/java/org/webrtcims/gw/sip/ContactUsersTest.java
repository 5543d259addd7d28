package org.webrtcims.gw.sip;

import org.junit.jupiter.api.Test;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.metrics.GatewayMetrics;

import javax.sip.address.SipURI;
import javax.sip.header.ContactHeader;
import javax.sip.header.ExpiresHeader;
import javax.sip.message.Request;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The registered Contact's user part (docs/security.md "SIP sources"): random per registration, kept across its
 * refreshes, mapped back to the login while it lives and forgotten when it ends. Real JAIN-SIP REGISTERs, the
 * registrar played here ({@link PlayedRegistrar}).
 */
class ContactUsersTest {
    private static final String FORM = "w[0-9a-f]{32}";

    @Test
    void issuedUserPartsAreRandomAndMapBackToTheLoginUntilReleased() {
        ContactUsers users = new ContactUsers();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            String u = users.issue("alice");
            assertTrue(u.matches(FORM), "a contact user part is 'w' and 32 hex digits, got " + u);
            assertTrue(seen.add(u), "two registrations got the same contact user part " + u);
            assertEquals(Optional.of("alice"), users.loginOf(u));
        }
        assertEquals(Optional.empty(), users.loginOf("alice"), "the login name is no contact user part");
        assertEquals(Optional.empty(), users.loginOf(null));
        String one = seen.iterator().next();
        users.release(one);
        assertEquals(Optional.empty(), users.loginOf(one), "a released contact user part maps to no one");
        assertEquals(199, users.size());
        assertThrows(IllegalArgumentException.class, () -> users.issue(""));
    }

    private static String contactUser(Request r) {
        return ((SipURI) ((ContactHeader) r.getHeader(ContactHeader.NAME)).getAddress().getURI()).getUser();
    }

    private static int expires(Request r) { return ((ExpiresHeader) r.getHeader(ExpiresHeader.NAME)).getExpires(); }

    @Test
    void aRegistrationKeepsItsContactUserAcrossRefreshesAndANewLoginGetsANewOne() throws Exception {
        GatewayProperties props = new GatewayProperties();
        props.getIms().setRegisterExpires(1); // refresh after 1 s
        try (Registrations g = new Registrations(props)) {
            PlayedRegistrar registrar = g.registrar();
            ContactUsers users = g.users();
            RegistrationClient client = g.client();
            RegistrarRecoveryTest.registered(client, registrar, "alice", 0);
            String first = contactUser(registrar.sent.get(0));
            assertTrue(first.matches(FORM), "the REGISTER's Contact user part is random, not the login: " + first);
            assertEquals(Optional.of(first), client.contactUser("alice"));
            assertEquals(Optional.of("alice"), users.loginOf(first));

            RegistrarRecoveryTest.waitFor(() -> registrar.sent.size() >= 2, 3000, "the refresh");
            assertEquals(first, contactUser(registrar.sent.get(1)), "a refresh keeps the registration's contact");
            registrar.answer(1, 200, null);

            // a second browser session of alice while she is registered: the same contact (the registrar updates it)
            var again = client.register("alice", "pw");
            int i = registrar.sent.size() - 1;
            assertEquals(first, contactUser(registrar.sent.get(i)), "a login of a registered user keeps the binding's contact");
            registrar.answer(i, 200, null);
            again.get();

            client.unregister("alice");
            Request dereg = RegistrarRecoveryTest.last(registrar.sent);
            assertEquals(0, expires(dereg));
            assertEquals(first, contactUser(dereg), "the de-REGISTER removes the registered contact");
            assertEquals(Optional.empty(), users.loginOf(first), "after logout the contact user part maps to no one");
            assertEquals(Optional.empty(), client.contactUser("alice"));
            registrar.answer(registrar.sent.size() - 1, 200, null);

            var next = client.register("alice", "pw");
            int n = registrar.sent.size() - 1;
            String second = contactUser(registrar.sent.get(n));
            assertTrue(second.matches(FORM), second);
            assertNotEquals(first, second, "a new login gets a new contact user part");
            registrar.answer(n, 200, null);
            next.get();
            assertEquals(Optional.of("alice"), users.loginOf(second));
        }
    }

    @Test
    void aSecondSessionsLoginThatOutlivesTheFirstSessionsLogoutKeepsTheContactMapped() throws Exception {
        GatewayProperties props = new GatewayProperties();
        try (Registrations g = new Registrations(props)) {
            PlayedRegistrar registrar = g.registrar();
            ContactUsers users = g.users();
            RegistrationClient client = g.client();
            RegistrarRecoveryTest.registered(client, registrar, "alice", 0);
            String contact = contactUser(registrar.sent.get(0));
            var second = client.register("alice", "pw"); // another browser session of alice, REGISTER in flight
            client.unregister("alice");                  // the first session logs out meanwhile
            assertEquals(Optional.empty(), users.loginOf(contact));
            registrar.answer(1, 200, null);              // the second session's REGISTER succeeds
            second.get();
            assertEquals(contact, contactUser(registrar.sent.get(1)));
            assertEquals(Optional.of("alice"), users.loginOf(contact), "the live binding's contact reaches alice again");
            assertEquals(Optional.of(contact), client.contactUser("alice"));
        }
    }

    @Test
    void aRefusedLoginKeepsNoContactUser() throws Exception {
        GatewayProperties props = new GatewayProperties();
        try (Registrations g = new Registrations(props)) {
            PlayedRegistrar registrar = g.registrar();
            ContactUsers users = g.users();
            RegistrationClient client = g.client();
            var login = client.register("alice", "wrong");
            String issued = contactUser(registrar.sent.get(0));
            registrar.answer(0, 403, null);
            assertThrows(ExecutionException.class, login::get);
            assertEquals(Optional.empty(), users.loginOf(issued), "a refused login leaves no contact user part behind");
            assertEquals(0, users.size());
        }
    }

    /** A RegistrationClient on a played registrar with its own ContactUsers, shut down at the end of a test. */
    private record Registrations(PlayedRegistrar registrar, ContactUsers users, RegistrationClient client) implements AutoCloseable {
        Registrations(GatewayProperties props) throws Exception {
            this(new PlayedRegistrar("reg-"), new ContactUsers(), props);
        }

        private Registrations(PlayedRegistrar registrar, ContactUsers users, GatewayProperties props) {
            this(registrar, users, new RegistrationClient(registrar.ua, new SipRequests(registrar.ua, props), props,
                    GatewayMetrics.none(), users));
        }

        @Override
        public void close() { client.shutdown(); }
    }
}

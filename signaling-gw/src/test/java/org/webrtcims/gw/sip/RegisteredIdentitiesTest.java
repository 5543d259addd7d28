package org.webrtcims.gw.sip;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.webrtcims.gw.config.GatewayProperties;

import javax.sip.message.Request;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The registered public user identities (TS 24.229 §5.1.1.2.1, RFC 3455 P-Associated-URI): parsed from the 200 on
 * real JAIN-SIP messages with a registrar played here, the default one, a choice among them, and the fallback to
 * what the gateway registered when the core sends no P-Associated-URI.
 */
class RegisteredIdentitiesTest {
    PlayedRegistrar registrar;
    RegistrationClient client;

    @BeforeEach
    void setUp(@TempDir Path dir) throws Exception {
        Path creds = dir.resolve("creds.txt");
        // login "frank" is not the user part of any of his identities (an operator's numbering)
        Files.writeString(creds, String.join("\n",
                "frank frank-secret tna 2345@ims.lab sip:+15552345@ims.lab,tel:+15552345",
                "gina gina-secret tna gina@ims.lab sip:gina@ims.lab", ""));
        GatewayProperties props = new GatewayProperties();
        props.getIms().setCredentials(creds.toString());
        registrar = new PlayedRegistrar("reg-call-");
        client = new RegistrationClient(registrar.ua, new SipRequests(registrar.ua, props), props);
    }

    @Test
    void theDefaultIdentityIsTheFirstOfPAssociatedUriNeverTheLogin() throws Exception {
        CompletableFuture<Void> done = client.register("frank", "frank-secret");
        Request reg = registrar.sent.get(0);
        assertTrue(reg.getHeader("To").toString().contains("<sip:+15552345@ims.lab>"), "the REGISTER names the first IMPU: " + reg);
        registrar.answer(0, 200, null, "P-Associated-URI: <sip:+15552345@ims.lab>", "P-Associated-URI: <tel:+15552345>",
                "P-Associated-URI: <sip:frank.work@ims.lab>;x=1");
        done.get();
        RegisteredIdentities ids = client.identities("frank").orElseThrow();
        assertEquals(List.of("sip:+15552345@ims.lab", "tel:+15552345", "sip:frank.work@ims.lab"), ids.all(),
                "every P-Associated-URI entry, in order, across headers");
        assertTrue(ids.fromCore());
        assertEquals("sip:+15552345@ims.lab", client.callerIdentity("frank", null), "the default public user identity");
        assertEquals("tel:+15552345", client.callerIdentity("frank", "tel:+15552345"), "a tel URI of the set");
        assertEquals("sip:frank.work@ims.lab", client.callerIdentity("frank", " <sip:frank.work@ims.lab> "));
        RegisteredIdentities.NotRegistered e = assertThrows(RegisteredIdentities.NotRegistered.class,
                () -> client.callerIdentity("frank", "sip:frank@ims.lab"));
        assertEquals("'sip:frank@ims.lab' is not one of your registered identities (sip:+15552345@ims.lab, tel:+15552345, "
                + "sip:frank.work@ims.lab)", e.getMessage(), "the login name is no identity");
        assertEquals(ids.all(), client.status("frank").orElseThrow().identities());
    }

    @Test
    void aCoreThatOmitsAnImpuOfTheFileHasItsWay() throws Exception {
        CompletableFuture<Void> done = client.register("frank", "frank-secret");
        registrar.answer(0, 200, null, "P-Associated-URI: <sip:+15552345@ims.lab>"); // tel barred or not provisioned
        done.get();
        assertEquals(List.of("sip:+15552345@ims.lab"), client.identities("frank").orElseThrow().all());
        assertThrows(RegisteredIdentities.NotRegistered.class, () -> client.callerIdentity("frank", "tel:+15552345"),
                "a P-CSCF would not assert an identity the registration did not give");
    }

    @Test
    void withoutPAssociatedUriTheIdentitiesAreTheOnesTheGatewayRegistered() throws Exception {
        CompletableFuture<Void> done = client.register("frank", "frank-secret");
        registrar.answer(0, 200, null);
        done.get();
        RegisteredIdentities ids = client.identities("frank").orElseThrow();
        assertFalse(ids.fromCore());
        assertEquals(List.of("sip:+15552345@ims.lab", "tel:+15552345"), ids.all(), "the file's IMPU list");
        assertEquals("sip:+15552345@ims.lab", client.callerIdentity("frank", ""));
    }

    @Test
    void withoutACredentialsFileTheIdentityIsLoginAtDomain() throws Exception {
        GatewayProperties props = new GatewayProperties();
        props.getIms().setDomain("ims.lab");
        PlayedRegistrar light = new PlayedRegistrar("light-");
        RegistrationClient c = new RegistrationClient(light.ua, new SipRequests(light.ua, props), props);
        CompletableFuture<Void> done = c.register("alice", "pw");
        light.answer(0, 200, null);
        done.get();
        assertEquals(List.of("sip:alice@ims.lab"), c.identities("alice").orElseThrow().all());
    }

    @Test
    void noRegistrationNoIdentityToCallFrom() {
        RegisteredIdentities.NotRegistered e = assertThrows(RegisteredIdentities.NotRegistered.class,
                () -> client.callerIdentity("frank", null));
        assertEquals("frank has no IMS registration to call from", e.getMessage());
        assertTrue(client.identities("frank").isEmpty());
    }

    @Test
    void parsesPAssociatedUriValuesAsWritten() {
        assertEquals(List.of("sip:a@d", "tel:+1;phone-context=d", "sip:b@d"),
                RegisteredIdentities.parseValue("P-Associated-URI: <sip:a@d>;p=\"x,y\" , <tel:+1;phone-context=d>,sip:b@d;q=1"));
        assertEquals(List.of(), RegisteredIdentities.parseValue("P-Associated-URI: "));
        RegisteredIdentities r = RegisteredIdentities.registered(List.of("sip:a@d"));
        assertEquals("sip:a@d", r.choose(null));
        assertThrows(IllegalArgumentException.class, () -> RegisteredIdentities.registered(List.of()));
    }
}

package org.webrtcims.gw.sip.aka;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class ImsCredentialsTest {
    static final Path F = Path.of("creds.txt");
    static final String ALICE = "alice alice-secret aka alice@ims.lab sip:alice@ims.lab 019b6cd8b6a57181ba1e1f8e476f10ea cedbd2809f80ab557b852dd9e0aefe63 8000";

    @Test
    void parsesDigestAndAkaUsers() {
        ImsCredentials c = ImsCredentials.parse(F, List.of("# comment", "", "carol carol-secret digest  # trailing",
                ALICE + " 000000000100"));
        assertTrue(c.enabled());
        assertEquals(2, c.size());
        ImsCredentials.Subscriber carol = c.of("carol").orElseThrow();
        assertEquals(ImsCredentials.Kind.DIGEST, carol.kind());
        assertTrue(carol.passwordMatches("carol-secret"));
        assertFalse(carol.passwordMatches("carol-secreT"));
        assertFalse(carol.passwordMatches(null));
        ImsCredentials.Subscriber alice = c.of("alice").orElseThrow();
        assertEquals(ImsCredentials.Kind.AKA, alice.kind());
        assertEquals("alice@ims.lab", alice.impi());
        assertEquals("sip:alice@ims.lab", alice.impu());
        assertEquals(0x100, alice.usim().sqnMs());
        assertTrue(c.of("bob").isEmpty());
        assertFalse(ImsCredentials.none().enabled());
        assertEquals(null, carol.impi());
        assertEquals(null, carol.digestPassword());
    }

    @Test
    void digestUserWithAnImsIdentity() {
        // an outside IMS (./lab up --ims external): IMPI, IMPU and the SIP password, apart from the web password
        ImsCredentials c = ImsCredentials.parse(F, List.of("erin erin-web digest 2345@op.example sip:+15552345@op.example sip-pw"));
        ImsCredentials.Subscriber erin = c.of("erin").orElseThrow();
        assertEquals(ImsCredentials.Kind.DIGEST, erin.kind());
        assertEquals("2345@op.example", erin.impi());
        assertEquals("sip:+15552345@op.example", erin.impu());
        assertEquals("sip-pw", erin.digestPassword());
        assertTrue(erin.passwordMatches("erin-web"));
        assertFalse(erin.passwordMatches("sip-pw"));
    }

    @Test
    void anImpuFieldMayListSeveralIdentitiesTheFirstRegistered() {
        ImsCredentials c = ImsCredentials.parse(F, List.of(
                "frank pw aka frank@ims.lab sip:+15550100@ims.lab,tel:+15550100,sip:frank.work@ims.lab "
                        + "019b6cd8b6a57181ba1e1f8e476f10ea cedbd2809f80ab557b852dd9e0aefe63 8000",
                "gina pw digest gina@op.example sip:gina@op.example,tel:+4930123;phone-context=op.example sip-pw",
                "hal pw tna hal@ims.lab sip:hal@ims.lab"));
        ImsCredentials.Subscriber frank = c.of("frank").orElseThrow();
        assertEquals("sip:+15550100@ims.lab", frank.impu(), "the REGISTER names the first");
        assertEquals(List.of("sip:+15550100@ims.lab", "tel:+15550100", "sip:frank.work@ims.lab"), frank.impus());
        assertEquals(List.of("sip:gina@op.example", "tel:+4930123;phone-context=op.example"), c.of("gina").orElseThrow().impus());
        assertEquals(List.of("sip:hal@ims.lab"), c.of("hal").orElseThrow().impus(), "one IMPU, as before");
        assertEquals(List.of(), ImsCredentials.parse(F, List.of("x pw digest")).of("x").orElseThrow().impus());
        for (String[] bad : List.of(
                new String[] {"a pw tna a@ims.lab tel:+1,sip:a@ims.lab", "IMPU must be a sip: URI, not 'tel:+1'"},
                new String[] {"a pw tna a@ims.lab sip:a@ims.lab,mailto:a@b", "a further IMPU must be a sip: or tel: URI, not 'mailto:a@b'"},
                new String[] {"a pw tna a@ims.lab sip:a@ims.lab,", "a further IMPU must be a sip: or tel: URI, not ''"},
                new String[] {"a pw tna a@ims.lab sip:a@ims.lab,tel:+1,tel:+1", "IMPU tel:+1 is listed twice"})) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ImsCredentials.parse(F, List.of(bad[0])), bad[0]);
            assertTrue(e.getMessage().startsWith("creds.txt:1: ") && e.getMessage().contains(bad[1]), e.getMessage());
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ImsCredentials.parse(F, List.of(
                "a pw tna a@ims.lab sip:a@ims.lab,tel:+1", "b pw tna b@ims.lab sip:b@ims.lab,tel:+1")))
                .getMessage().contains("creds.txt:2: IMPU tel:+1 is listed twice"), "an identity belongs to one subscriber");
    }

    @Test
    void parsesWebAuthenticatedUsersAndThePool() {
        ImsCredentials c = ImsCredentials.parse(F, List.of("dave dave-secret tna dave@ims.lab sip:dave@ims.lab",
                "- - pool guest1@ims.lab sip:guest1@ims.lab", "-  -  pool  guest2@ims.lab  sip:guest2@ims.lab  # second"));
        ImsCredentials.Subscriber dave = c.of("dave").orElseThrow();
        assertEquals(ImsCredentials.Kind.TNA, dave.kind());
        assertEquals("dave@ims.lab", dave.impi());
        assertEquals("sip:dave@ims.lab", dave.impu());
        assertNull(dave.usim());
        assertTrue(dave.passwordMatches("dave-secret"));
        assertEquals(1, c.size(), "pool identities are not logins");
        assertEquals(List.of("guest1", "guest2"), c.pool().stream().map(ImsCredentials.Subscriber::login).toList());
        assertEquals(List.of("sip:guest1@ims.lab", "sip:guest2@ims.lab"), c.pool().stream().map(ImsCredentials.Subscriber::impu).toList());
        ImsCredentials.Subscriber g = c.pool().get(0);
        assertEquals(ImsCredentials.Kind.TNA, g.kind());
        assertFalse(g.passwordMatches(""), "a pool identity has no password");
        assertTrue(c.of("guest1").isEmpty(), "nobody logs in as a pool identity");
        assertTrue(ImsCredentials.parse(F, List.of("- - pool g@ims.lab sip:g@ims.lab")).enabled(), "a pool alone is a file");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ImsCredentials.parse(F,
                List.of("dave dave-secret tna dave@ims.lab sip:dave@ims.lab", "erin erin-secret tna erin@ims.lab sip:dave@ims.lab")))
                .getMessage().contains("creds.txt:2: IMPU sip:dave@ims.lab is listed twice"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ImsCredentials.parse(F,
                List.of("guest1 pw digest", "- - pool guest1@ims.lab sip:guest1@ims.lab")))
                .getMessage().contains("creds.txt:2: user guest1 is listed twice"));
    }

    @Test
    void everyBadLineIsNamedWithItsLineNumber() {
        record Bad(String line, String message) { }
        for (Bad b : List.of(
                new Bad("alice", "expected LOGIN WEB-PASSWORD digest|aka"),
                new Bad("al/ice pw digest", "bad login 'al/ice'"),
                new Bad("alice pw digest extra", "a digest user has LOGIN WEB-PASSWORD digest [IMPI IMPU SIP-PASSWORD]"),
                new Bad("alice pw digest alice sip:alice@ims.lab pw", "IMPI must be user@realm"),
                new Bad("alice pw digest alice@ims.lab alice@ims.lab pw", "IMPU must be a sip: URI"),
                new Bad("alice pw md5", "the third field is digest, aka, tna or pool, not 'md5'"),
                new Bad("dave pw tna dave@ims.lab", "a tna user has LOGIN WEB-PASSWORD tna IMPI IMPU"),
                new Bad("dave pw tna dave sip:dave@ims.lab", "IMPI must be user@realm"),
                new Bad("- - pool g@ims.lab", "a pool identity is: - - pool IMPI IMPU"),
                new Bad("x - pool g@ims.lab sip:g@ims.lab", "a pool identity is: - - pool IMPI IMPU"),
                new Bad("- - pool g@ims.lab sip:g/x@ims.lab", "the user part of a pool IMPU must be a valid login"),
                new Bad("alice pw aka alice@ims.lab sip:alice@ims.lab", "an aka user has"),
                new Bad(ALICE.replace("alice@ims.lab sip", "alice sip"), "IMPI must be user@realm"),
                new Bad(ALICE.replace("sip:alice@ims.lab", "tel:+1555"), "IMPU must be a sip: URI"),
                new Bad(ALICE.replace("019b6cd8", "019b6cdX"), "K must be 32 hex digits"),
                new Bad(ALICE.replace("cedbd280", "cedbd2"), "OPc must be 32 hex digits"),
                new Bad(ALICE.replace(" 8000", " 80000"), "AMF must be 4 hex digits"),
                new Bad(ALICE + " 12", "SQN must be 12 hex digits"))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ImsCredentials.parse(F, List.of("# x", b.line())), b.line());
            assertTrue(e.getMessage().startsWith("creds.txt:2: ") && e.getMessage().contains(b.message()), e.getMessage());
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ImsCredentials.parse(F, List.of(ALICE, ALICE)))
                .getMessage().contains("creds.txt:2: user alice is listed twice"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ImsCredentials.parse(F, List.of("# only")))
                .getMessage().contains("no users"));
    }

    @Test
    void loadsAFileOrSaysWhyNot(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("c.txt");
        Files.writeString(f, "bob bob-secret digest\n");
        assertTrue(ImsCredentials.load(f).of("bob").isPresent());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ImsCredentials.load(dir.resolve("missing.txt")));
        assertTrue(e.getMessage().startsWith("cannot read the IMS credentials file"), e.getMessage());
    }

    @Test
    void theLabsFileMatchesTheHssTable() throws Exception {
        // ims-sim/3gpp/gateway-credentials.txt must hold the same K/OPc/AMF as the HSS's subscribers.txt
        Path root = Path.of("..").toAbsolutePath().normalize();
        ImsCredentials c = ImsCredentials.load(root.resolve("ims-sim/3gpp/gateway-credentials.txt"));
        List<String> table = Files.readAllLines(root.resolve("ims-sim/3gpp/subscribers.txt")).stream()
                .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        for (String login : List.of("erin")) {
            // a web-authenticated user's identity must be a tna subscription of the HSS
            ImsCredentials.Subscriber s = c.of(login).orElseThrow();
            String[] row = table.stream().map(l -> l.split("\\s+")).filter(f -> f[0].equals(s.impi())).findFirst().orElseThrow();
            assertTrue(List.of(row[1].split(",")).contains(s.impu()), login + "'s IMPU in the HSS table");
            assertEquals("tna", row.length > 6 ? row[6] : "aka", login + " is a tna subscriber");
        }
        assertFalse(c.pool().isEmpty(), "the lab's file has a guest pool");
        for (ImsCredentials.Subscriber p : c.pool()) {
            String[] row = table.stream().map(l -> l.split("\\s+")).filter(f -> f[0].equals(p.impi())).findFirst().orElseThrow();
            assertTrue(List.of(row[1].split(",")).contains(p.impu()), p.impu() + " in the HSS table");
            assertEquals("tna", row.length > 6 ? row[6] : "aka", p.impu() + " is a tna subscriber");
        }
        for (String login : List.of("alice", "bob", "carol", "dave", "frank", "ivan")) {
            ImsCredentials.Subscriber s = c.of(login).orElseThrow();
            String[] row = table.stream().map(l -> l.split("\\s+")).filter(f -> f[0].equals(s.impi())).findFirst().orElseThrow();
            assertTrue(List.of(row[1].split(",")).containsAll(s.impus()), login + "'s IMPUs " + s.impus() + " in the HSS table's implicit set " + row[1]);
            // same keys: the USIM accepts an AUTN the HSS side would make from the table's K/OPc
            Milenage hss = new Milenage(MilenageTest.h(row[2]), MilenageTest.h(row[3]));
            byte[] rand = MilenageTest.h("23553cbe9637a89d218ae64dae47bf35"), amf = MilenageTest.h(row[4]);
            long sqn = s.usim().sqnMs() + 1;
            byte[] autn = new byte[16];
            System.arraycopy(Milenage.xor(Usim.toBytes(sqn), hss.f5(rand)), 0, autn, 0, 6);
            System.arraycopy(amf, 0, autn, 6, 2);
            System.arraycopy(hss.f1(rand, Usim.toBytes(sqn), amf), 0, autn, 8, 8);
            assertInstanceOf(Usim.Success.class, s.usim().authenticate(rand, autn), login);
        }
    }
}

package org.webrtcims.gw.sip.aka;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The gateway's per-user IMS credentials (`--lab.ims.credentials=FILE`, docs/ims-sim.md). One user per line,
 * '#' starts a comment, fields separated by blanks:
 * <pre>
 *   LOGIN  WEB-PASSWORD  digest  [IMPI  IMPU  SIP-PASSWORD]
 *   LOGIN  WEB-PASSWORD  aka  IMPI  IMPUS  K  OPc  AMF  [SQN]
 *   LOGIN  WEB-PASSWORD  tna  IMPI  IMPUS
 *   -      -             pool IMPI  IMPU
 * </pre>
 * IMPUS is one IMPU or several, comma-separated without blanks ({@code sip:alice@ims.lab,tel:+15550100}): the
 * first (a sip:/sips: URI) is the one the REGISTER names; the others (sip:, sips: or tel:) are the subscriber's
 * further public user identities, expected in the implicit registration set. The identities a user may call as
 * are the 200's P-Associated-URI ({@link org.webrtcims.gw.sip.RegisteredIdentities}); this list stands in for it
 * only when the core sends none.
 * LOGIN is the name the browser logs in with, WEB-PASSWORD what it must give (checked here, by the gateway).
 * {@code digest}: the gateway answers the registrar's digest challenge as LOGIN with WEB-PASSWORD (the light
 * core), or, with IMPI IMPU SIP-PASSWORD (an outside IMS, `./lab up --ims external`), registers IMPU and
 * answers as IMPI with SIP-PASSWORD. {@code aka}: it registers IMPU with the private identity IMPI by IMS-AKA (AKAv1-MD5, RFC 3310) with
 * the USIM values K, OPc (32 hex digits), AMF (4) and SQN (12, the last sequence number the USIM accepted;
 * default 0). {@code tna}: web authentication (TS 24.371 §6): the gateway, as WAF, checks the web password and
 * registers IMPU/IMPI with trusted node authentication ({@code integrity-protected="auth-done"}, no challenge).
 * {@code pool}: a public user identity of the guest pool (no login of its own): a guest login takes a free one,
 * registers it with trusted node authentication and gives it back when the session ends; the browser user is
 * then the IMPU's user part, which must not be a LOGIN of the file.
 */
public final class ImsCredentials {
    public enum Kind { DIGEST, AKA, TNA }

    /**
     * One user: for AKA, impi/impu/usim are set; for digest with an IMS identity, impi/impu/digestPassword; for TNA
     * impi/impu (webPassword null for a pool identity).
     */
    public record Subscriber(String login, Kind kind, String impi, List<String> impus, Usim usim, byte[] webPassword, String digestPassword) {
        public Subscriber {
            impus = impus == null ? List.of() : List.copyOf(impus);
        }

        /** The IMPU the REGISTER names (the first of the line's list), null without one. */
        public String impu() { return impus.isEmpty() ? null : impus.get(0); }

        public boolean passwordMatches(String password) {
            return password != null && webPassword != null
                    && MessageDigest.isEqual(webPassword, password.getBytes(StandardCharsets.UTF_8));
        }
    }

    private final Path file;
    private final Map<String, Subscriber> byLogin;
    private final List<Subscriber> pool;

    private ImsCredentials(Path file, Map<String, Subscriber> byLogin, List<Subscriber> pool) {
        this.file = file;
        this.byLogin = byLogin;
        this.pool = pool;
    }

    /** No file: every login is passed on to the registrar's digest check (the light core's users.txt). */
    public static ImsCredentials none() { return new ImsCredentials(null, Map.of(), List.of()); }

    public static ImsCredentials load(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the IMS credentials file " + file + ": " + e.getMessage());
        }
        return parse(file, lines);
    }

    static ImsCredentials parse(Path file, List<String> lines) {
        Map<String, Subscriber> users = new LinkedHashMap<>();
        Map<String, Subscriber> pool = new LinkedHashMap<>();
        java.util.Set<String> impus = new java.util.HashSet<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int hash = line.indexOf('#');
            if (hash >= 0) line = line.substring(0, hash);
            line = line.strip();
            if (line.isEmpty()) continue;
            String where = file + ":" + (i + 1) + ": ";
            String[] f = line.split("\\s+");
            Subscriber s = f.length >= 3 && f[2].equals("pool") ? poolEntry(f, where) : subscriber(f, where);
            Map<String, Subscriber> into = s.webPassword() == null ? pool : users;
            if (users.containsKey(s.login()) || pool.containsKey(s.login())) {
                throw new IllegalArgumentException(where + "user " + s.login() + " is listed twice");
            }
            for (String impu : s.impus()) {
                if (!impus.add(impu)) throw new IllegalArgumentException(where + "IMPU " + impu + " is listed twice");
            }
            into.put(s.login(), s);
        }
        if (users.isEmpty() && pool.isEmpty()) throw new IllegalArgumentException(file + ": no users");
        return new ImsCredentials(file, Map.copyOf(users), List.copyOf(pool.values()));
    }

    /** {@code - - pool IMPI IMPU}: the browser user of a guest holding it is IMPU's user part. */
    private static Subscriber poolEntry(String[] f, String where) {
        if (f.length != 5 || !f[0].equals("-") || !f[1].equals("-")) {
            throw new IllegalArgumentException(where + "a pool identity is: - - pool IMPI IMPU");
        }
        String impi = impi(f[3], where), impu = impu(f[4], where);
        String user = impu.substring(impu.indexOf(':') + 1, impu.indexOf('@'));
        if (!user.matches("[A-Za-z0-9._+-]{1,64}")) {
            throw new IllegalArgumentException(where + "the user part of a pool IMPU must be a valid login, not '" + user + "'");
        }
        return new Subscriber(user, Kind.TNA, impi, List.of(impu), null, null, null);
    }

    private static String impi(String impi, String where) {
        if (!impi.matches("[^@\\s]+@[^@\\s]+")) throw new IllegalArgumentException(where + "IMPI must be user@realm, not '" + impi + "'");
        return impi;
    }

    private static String impu(String impu, String where) {
        if (!impu.matches("sips?:[^@\\s,]+@[^@\\s,]+")) throw new IllegalArgumentException(where + "IMPU must be a sip: URI, not '" + impu + "'");
        return impu;
    }

    /** IMPU[,IMPU...]: the first a sip:/sips: URI (the REGISTER's), the others sip:, sips: or tel: URIs, no repeats. */
    private static List<String> impus(String field, String where) {
        String[] parts = field.split(",", -1);
        List<String> out = new java.util.ArrayList<>();
        out.add(impu(parts[0], where));
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i];
            if (!p.matches("sips?:[^@\\s,]+@[^@\\s,]+") && !p.matches("tel:\\+?[0-9A-Fa-f*#.()-]+(;[^\\s,]*)?")) {
                throw new IllegalArgumentException(where + "a further IMPU must be a sip: or tel: URI, not '" + p + "'");
            }
            if (out.contains(p)) throw new IllegalArgumentException(where + "IMPU " + p + " is listed twice");
            out.add(p);
        }
        return out;
    }

    private static Subscriber subscriber(String[] f, String where) {
        if (f.length < 3) throw new IllegalArgumentException(where + "expected LOGIN WEB-PASSWORD digest|aka|tna ... (or - - pool IMPI IMPU)");
        String login = f[0];
        if (!login.matches("[A-Za-z0-9._+-]{1,64}")) throw new IllegalArgumentException(where + "bad login '" + login + "'");
        byte[] web = f[1].getBytes(StandardCharsets.UTF_8);
        switch (f[2]) {
            case "digest" -> {
                if (f.length == 3) return new Subscriber(login, Kind.DIGEST, null, null, null, web, null);
                if (f.length != 6) {
                    throw new IllegalArgumentException(where + "a digest user has LOGIN WEB-PASSWORD digest [IMPI IMPU SIP-PASSWORD]");
                }
                return new Subscriber(login, Kind.DIGEST, impi(f[3], where), impus(f[4], where), null, web, f[5]);
            }
            case "aka" -> {
                if (f.length != 8 && f.length != 9) {
                    throw new IllegalArgumentException(where + "an aka user has LOGIN WEB-PASSWORD aka IMPI IMPU K OPc AMF [SQN]");
                }
                String impi = impi(f[3], where);
                List<String> impus = impus(f[4], where);
                byte[] k = hex(f[5], 16, "K", where), opc = hex(f[6], 16, "OPc", where), amf = hex(f[7], 2, "AMF", where);
                long sqn = f.length == 9 ? Usim.toLong(hex(f[8], 6, "SQN", where)) : 0;
                return new Subscriber(login, Kind.AKA, impi, impus, new Usim(k, opc, amf, sqn), web, null);
            }
            case "tna" -> {
                if (f.length != 5) throw new IllegalArgumentException(where + "a tna user has LOGIN WEB-PASSWORD tna IMPI IMPU");
                return new Subscriber(login, Kind.TNA, impi(f[3], where), impus(f[4], where), null, web, null);
            }
            default -> throw new IllegalArgumentException(where + "the third field is digest, aka, tna or pool, not '" + f[2] + "'");
        }
    }

    private static byte[] hex(String s, int bytes, String what, String where) {
        if (!s.matches("[0-9a-fA-F]{" + 2 * bytes + "}")) {
            throw new IllegalArgumentException(where + what + " must be " + 2 * bytes + " hex digits, not '" + s + "'");
        }
        return HexFormat.of().parseHex(s);
    }

    /** A file was given: the gateway checks the web password itself and knows how each user registers. */
    public boolean enabled() { return file != null; }

    public Optional<Subscriber> of(String login) { return Optional.ofNullable(byLogin.get(login)); }

    public int size() { return byLogin.size(); }

    /** The guest pool's identities, in file order (empty: guest logins are off). */
    public List<Subscriber> pool() { return pool; }

    @Override
    public String toString() {
        return file == null ? "none" : file + " (" + byLogin.size() + " users" + (pool.isEmpty() ? "" : ", " + pool.size() + " pool identities") + ")";
    }
}

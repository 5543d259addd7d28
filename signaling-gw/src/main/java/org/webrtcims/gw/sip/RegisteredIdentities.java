package org.webrtcims.gw.sip;

import javax.sip.header.Header;
import javax.sip.header.HeaderAddress;
import javax.sip.message.Response;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.ListIterator;

/**
 * The public user identities a registration gave a user (TS 24.229 §5.1.1.2.1, RFC 3455 §4.1): the URIs of the
 * 200 (REGISTER)'s P-Associated-URI, in order — the implicit registration set, barred identities left out by the
 * S-CSCF — and the first of them is the default public user identity. A core that sends no P-Associated-URI
 * (the light core) leaves the identities the gateway itself registered: the credentials file's IMPU list, or
 * sip:LOGIN@domain. MO requests use one of these (§5.1.2A.1.1: the default unless the user picks another one of
 * the set, tel URIs included), never the login name.
 */
public final class RegisteredIdentities {
    private final List<String> uris;
    /** True when the set is the core's P-Associated-URI, false when it is only what the gateway registered. */
    private final boolean fromCore;

    private RegisteredIdentities(List<String> uris, boolean fromCore) {
        if (uris.isEmpty()) throw new IllegalArgumentException("a registration has at least one public user identity");
        this.uris = List.copyOf(uris);
        this.fromCore = fromCore;
    }

    /** Only what the gateway registered (no P-Associated-URI seen): {@code registered}, first = default. */
    public static RegisteredIdentities registered(List<String> registered) {
        return new RegisteredIdentities(registered, false);
    }

    /**
     * From the 200 to a REGISTER: its P-Associated-URI when it has one (each header and each comma-separated
     * entry, in order, duplicates once), else {@link #registered(List)}.
     */
    public static RegisteredIdentities of(Response ok, List<String> registered) {
        List<String> associated = associatedUris(ok);
        return associated.isEmpty() ? registered(registered) : new RegisteredIdentities(associated, true);
    }

    /** The URIs of a message's P-Associated-URI headers, in order, without duplicates; empty when there are none. */
    static List<String> associatedUris(Response r) {
        LinkedHashSet<String> out = new LinkedHashSet<>();
        ListIterator<?> it = r.getHeaders("P-Associated-URI");
        while (it != null && it.hasNext()) {
            Object h = it.next();
            if (h instanceof HeaderAddress a && a.getAddress() != null && a.getAddress().getURI() != null) {
                out.add(a.getAddress().getURI().toString());
            } else if (h instanceof Header any) {
                out.addAll(parseValue(any.toString()));
            }
        }
        return List.copyOf(out);
    }

    /** {@code P-Associated-URI: <sip:a@d>;p=1, <tel:+1>} (name optional) → [sip:a@d, tel:+1]. */
    static List<String> parseValue(String header) {
        String v = header.strip();
        int colon = v.indexOf(':');
        if (colon > 0 && v.substring(0, colon).strip().equalsIgnoreCase("P-Associated-URI")) v = v.substring(colon + 1);
        List<String> out = new ArrayList<>();
        int depth = 0, start = 0;
        boolean quoted = false;
        for (int i = 0; i <= v.length(); i++) {
            char c = i < v.length() ? v.charAt(i) : ',';
            if (c == '"' && depth == 0) quoted = !quoted;
            else if (quoted) continue;
            else if (c == '<') depth++;
            else if (c == '>') depth = Math.max(0, depth - 1);
            else if (c == ',' && depth == 0) {
                String entry = v.substring(start, i).strip();
                start = i + 1;
                int lt = entry.indexOf('<'), gt = entry.indexOf('>', lt + 1);
                String uri = lt >= 0 && gt > lt ? entry.substring(lt + 1, gt) : entry.split(";", 2)[0];
                if (!uri.isBlank()) out.add(uri.strip());
            }
        }
        return out;
    }

    /** The default public user identity: the first one. */
    public String defaultIdentity() { return uris.get(0); }

    /** Every identity, the default first. */
    public List<String> all() { return uris; }

    /** True when the core listed them (P-Associated-URI), false when they are the gateway's own. */
    public boolean fromCore() { return fromCore; }

    public boolean contains(String uri) { return uri != null && uris.contains(uri.strip()); }

    /**
     * The identity a request goes out as: the default when {@code requested} is null or blank, else
     * {@code requested} itself (as written in {@link #all()}, with or without angle brackets) when it is one of
     * the set; otherwise {@link NotRegistered} naming the set.
     */
    public String choose(String requested) {
        if (requested == null || requested.isBlank()) return defaultIdentity();
        String r = requested.strip();
        if (r.startsWith("<") && r.endsWith(">")) r = r.substring(1, r.length() - 1).strip();
        if (uris.contains(r)) return r;
        throw new NotRegistered("'" + requested + "' is not one of your registered identities (" + String.join(", ", uris) + ")");
    }

    /** The requested identity is not in the registered set. */
    public static final class NotRegistered extends IllegalArgumentException {
        public NotRegistered(String message) { super(message); }
    }

    @Override
    public String toString() { return String.join(", ", uris) + (fromCore ? " (P-Associated-URI)" : " (registered)"); }
}

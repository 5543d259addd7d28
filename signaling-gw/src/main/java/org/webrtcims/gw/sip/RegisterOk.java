package org.webrtcims.gw.sip;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sip.address.Address;
import javax.sip.address.AddressFactory;
import javax.sip.address.SipURI;
import javax.sip.header.ContactHeader;
import javax.sip.header.ExpiresHeader;
import javax.sip.message.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.ListIterator;

/**
 * What the registrar's 2xx to a REGISTER granted: the expiry of the gateway's own contact (the 200 lists every
 * contact of the user, RFC 3261 §10.3), the Service-Route (RFC 3608) and the registered public user identities
 * (P-Associated-URI, else what the gateway registered: {@link RegisteredIdentities}).
 */
record RegisterOk(int expires, List<Address> serviceRoute, RegisteredIdentities identities) {
    private static final Logger log = LoggerFactory.getLogger(RegisterOk.class);

    /**
     * Reads a 2xx. {@code ourHostPort}: the host:port of the gateway's Contact; {@code contactUser}: its user part;
     * {@code defaultExpires}: the expiry asked for (when the 200 names none for our contact); {@code registered}:
     * the identities the gateway registered; {@code before}: the identities of the previous 200 (null: none), to
     * log a change once.
     */
    static RegisterOk of(Response r, String user, String contactUser, String ourHostPort, int defaultExpires,
                         List<String> registered, RegisteredIdentities before, AddressFactory addresses) {
        return new RegisterOk(grantedExpires(r, contactUser, ourHostPort, defaultExpires), serviceRoute(r, addresses),
                identities(r, user, registered, before));
    }

    static int grantedExpires(Response r, String contactUser, String ourHostPort, int defaultExpires) {
        ListIterator<?> it = r.getHeaders(ContactHeader.NAME);
        while (it != null && it.hasNext()) {
            ContactHeader c = (ContactHeader) it.next();
            if (c.getAddress().getURI() instanceof SipURI u && contactUser.equals(u.getUser())
                    && ourHostPort.equals(u.getHost() + ":" + u.getPort()) && c.getExpires() > 0) {
                return c.getExpires();
            }
        }
        ExpiresHeader e = (ExpiresHeader) r.getHeader(ExpiresHeader.NAME);
        return e != null && e.getExpires() > 0 ? e.getExpires() : defaultExpires;
    }

    static List<Address> serviceRoute(Response r, AddressFactory addresses) {
        List<Address> route = new ArrayList<>();
        ListIterator<?> it = r.getHeaders("Service-Route");
        while (it != null && it.hasNext()) {
            String h = it.next().toString().trim();
            String value = h.regionMatches(true, 0, "Service-Route:", 0, 14) ? h.substring(14).trim() : h;
            try {
                route.add(addresses.createAddress(value));
            } catch (java.text.ParseException e) {
                log.warn("unusable Service-Route '{}' ignored", value);
            }
        }
        return List.copyOf(route);
    }

    /**
     * The registration's identities: P-Associated-URI, else what the gateway registered. An IMPU of the credentials
     * file the core did not associate is logged (and not offered: the P-CSCF would not assert it).
     */
    private static RegisteredIdentities identities(Response r, String user, List<String> ours, RegisteredIdentities before) {
        RegisteredIdentities ids = RegisteredIdentities.of(r, ours);
        if (before == null || !before.all().equals(ids.all())) {
            log.info("{} registered identities: {}", user, ids);
            if (ids.fromCore()) {
                for (String impu : ours) {
                    if (!ids.contains(impu)) {
                        log.warn("{}: IMPU {} of the credentials file is not among the registration's identities {}", user, impu, ids);
                    }
                }
            }
        }
        return ids;
    }
}

package org.webrtcims.gw.sip;

import org.webrtcims.gw.sip.aka.ImsCredentials;

import javax.sip.ClientTransaction;
import javax.sip.message.Response;
import java.util.List;

/**
 * How one user's REGISTERs authenticate: one implementation per registration scenario of TS 24.371 §6 — IMS
 * authentication by SIP digest ({@link DigestAuth}) or IMS-AKA ({@link AkaAuth}), web authentication with the
 * gateway as trusted node ({@link TrustedNodeAuth}), an identity from the guest pool ({@link PoolIdentityAuth}).
 * {@link RegistrationLifecycle} runs every scenario the same way (register, refresh, retry, de-register); each
 * REGISTER transaction ({@link RegisterTransaction}) asks its {@link Exchange} what its first REGISTER carries and
 * what to do with a 401, 403 or 407.
 */
interface RegisterAuth {
    /** The user's entry of the credentials file; null for a digest login without one (the light core). */
    ImsCredentials.Subscriber subscriber();

    /** How the user authenticates (the status's {@code auth}): digest, AKAv1-MD5 or trusted-node. */
    String mechanism();

    /** The TS 24.371 §6 scenario (the status's {@code scenario}): ims, web or pool. */
    String scenario();

    /** One REGISTER transaction's authentication: its first REGISTER and the challenges it gets. */
    Exchange exchange();

    /** The registration ended (de-registered, refused or ended by the network): give back what it held. */
    default void released() { }

    /** The IMPI the REGISTER names, null when the credentials file names none. */
    default String impi() { return subscriber() == null ? null : subscriber().impi(); }

    /** The IMPU the REGISTER registers (To, From), null when none is named (then sip:LOGIN@domain). */
    default String impu() { return subscriber() == null ? null : subscriber().impu(); }

    /** Every IMPU of the credentials file's entry, the default first; empty when it names none. */
    default List<String> impus() { return subscriber() == null ? List.of() : subscriber().impus(); }

    /** The authentication of one REGISTER transaction (an AKA exchange counts its challenges). */
    interface Exchange {
        /** What the transaction's first REGISTER carries: an Authorization header value (or null) and its flow note. */
        Send first();

        /** A 401, 403 or 407 to one of the transaction's REGISTERs ({@code ct}: the client transaction it answers). */
        Step challenged(Response response, ClientTransaction ct);
    }

    /** What a REGISTER transaction does next. */
    sealed interface Step permits Send, SendPrepared, Refuse, Pass { }

    /** Send the next REGISTER with this Authorization value (null: none); the flow reads "sent REGISTER" + note. */
    record Send(String authorization, String note) implements Step { }

    /** Send the REGISTER JAIN-SIP's digest helper prepared in its own client transaction. */
    record SendPrepared(ClientTransaction transaction, String note) implements Step { }

    /** The registration fails: {@code flowNote} (when not null) goes to the SIP flow first. */
    record Refuse(RegistrationException.Kind kind, int code, String message, String flowNote) implements Step {
        Refuse(RegistrationException.Kind kind, int code, String message) { this(kind, code, message, null); }
    }

    /** Not an authentication matter: the transaction's own handling (403 refused, any other failure rejected). */
    record Pass() implements Step { }

    Pass PASS = new Pass();
}

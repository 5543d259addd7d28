package org.webrtcims.gw.media;

import java.util.List;
import java.util.Map;
import org.webrtcims.gw.sdp.DtlsRole;
import org.webrtcims.gw.sdp.HostCandidates;
import org.webrtcims.gw.sdp.IceLiteAttribute;

/**
 * How rtpengine's two legs are set up (issue #17): its named interfaces (its `--interface=NAME/ADDR`) for the
 * browser and the IMS leg, sent as ng `direction` (null = one unnamed interface, no `direction` key); iceLite:
 * on which calls rtpengine is ICE-lite toward the browser (ng `ICE-lite`; docs/media.md "ICE role"). imsIpv6: the IMS
 * leg is IPv6 and the browser leg IPv4 (TS 23.334's IPv4/IPv6 interworking at the eIMS-AGW, issue #23): every SDP
 * rtpengine writes carries ng `address family` for its recipient (IP6 toward IMS, IP4 toward the browser), since
 * `direction` alone does not switch families (rtpengine keeps the family of the SDP it was given when the recipient
 * is not known yet). dtlsOnActpass: rtpengine's DTLS role toward a browser whose offer says `a=setup:actpass` (RFC 5763
 * §5 lets the answerer pick): `active` (the default) or `passive` always that role; `auto` is `passive` where rtpengine
 * is ICE-lite on the call, so the browser is the DTLS client and starts the handshake on its first successful check
 * (~50 ms sooner in Chromium), and `active` where rtpengine runs full ICE. `active` is the default because rtpengine
 * 10.5 as DTLS server never resends the handshake's last flight: one lost datagram and the call has no media
 * (docs/media.md "Which role toward an actpass browser", "A lost last DTLS flight"). liteInAnswers: whether rtpengine's
 * answer to the offer of a browser that opened the call keeps its `a=ice-lite` ({@link LiteInAnswers}, {@link
 * #answerToBrowser}).
 */
public record RtpEngineLegs(String browserInterface, String imsInterface, IceLite iceLite, boolean imsIpv6, String dtlsOnActpass,
                            LiteInAnswers liteInAnswers) {
    /** One unnamed interface, full ICE. */
    public static final RtpEngineLegs DEFAULT = new RtpEngineLegs(null, null, IceLite.OFF);
    static final String IP4 = "IP4";
    static final String IP6 = "IP6";

    /**
     * `lab.rtpengine.ice-lite`: `true` ICE-lite on every call (the default: the browser controls ICE on MO and MT);
     * `false` full ICE on every call; `mt` ICE-lite on calls whose first offer rtpengine makes to the browser (MT:
     * Firefox's checks come before rtpengine knows the browser's candidates, and full ICE lost those calls), full
     * ICE where the browser offers (MO): there Chromium nominates with its first check, while toward an ICE-lite
     * agent it nominates only a pair already found working, one check interval (~50 ms) later (issue #26; not the
     * default: rtpengine's DTLS ClientHello then races the browser's answer, docs/media.md "ICE role").
     */
    public enum IceLite {
        OFF, MT, ALL;

        public static IceLite parse(String v) {
            String s = v == null ? "" : v.trim().toLowerCase(java.util.Locale.ROOT);
            return switch (s) {
                case "false", "off", "none" -> OFF;
                case "mt" -> MT;
                case "true", "all" -> ALL;
                default -> throw new IllegalArgumentException("lab.rtpengine.ice-lite must be mt, true or false, not '" + v + "'");
            };
        }
    }

    /**
     * `lab.rtpengine.ice-lite-in-answers`: whether rtpengine's answer to the offer of a browser that opened the call says
     * `a=ice-lite` ({@link #answerToBrowser}): `true` always, as rtpengine writes it; `false` never; `auto` (the
     * default) not when the browser's offer has host candidates of one address, and as rtpengine writes it otherwise.
     */
    public enum LiteInAnswers {
        TRUE, FALSE, AUTO;

        public static LiteInAnswers parse(String v) {
            String s = v == null ? "" : v.trim().toLowerCase(java.util.Locale.ROOT);
            return switch (s) {
                case "", "auto" -> AUTO;
                case "true" -> TRUE;
                case "false" -> FALSE;
                default -> throw new IllegalArgumentException("lab.rtpengine.ice-lite-in-answers must be auto, true or false, not '" + v + "'");
            };
        }
    }

    public RtpEngineLegs {
        java.util.Objects.requireNonNull(liteInAnswers, "liteInAnswers");
        if ((browserInterface == null) != (imsInterface == null)) {
            throw new IllegalArgumentException("name both rtpengine interfaces (browser and IMS) or neither");
        }
        java.util.Objects.requireNonNull(iceLite, "iceLite");
        dtlsOnActpass = dtlsOnActpass(dtlsOnActpass);
    }

    /** `lab.rtpengine.dtls-on-actpass`: `active` (the default; null or empty too), `passive` or `auto`. */
    public static String dtlsOnActpass(String v) {
        String s = v == null ? "" : v.trim().toLowerCase(java.util.Locale.ROOT);
        return switch (s) {
            case "auto" -> "auto";
            case "", "active" -> "active";
            case "passive" -> "passive";
            default -> throw new IllegalArgumentException("lab.rtpengine.dtls-on-actpass must be auto, active or passive, not '" + v + "'");
        };
    }

    /** As given; rtpengine's answers say `a=ice-lite` as it writes them ({@link LiteInAnswers#TRUE}). */
    public RtpEngineLegs(String browserInterface, String imsInterface, IceLite iceLite, boolean imsIpv6, String dtlsOnActpass) {
        this(browserInterface, imsInterface, iceLite, imsIpv6, dtlsOnActpass, LiteInAnswers.TRUE);
    }

    /** Both legs as given, rtpengine's role toward an `actpass` browser the default (`active`). */
    public RtpEngineLegs(String browserInterface, String imsInterface, IceLite iceLite, boolean imsIpv6) {
        this(browserInterface, imsInterface, iceLite, imsIpv6, "active");
    }

    /**
     * The ng `DTLS` role of an answer toward the browser's offer: {@link DtlsRole#EITHER} (an `actpass` offer) as
     * configured. A browser offer that leaves the role open opens the call (MO, an offerless MT call; re-offers keep the
     * role they have), so under `auto` rtpengine is ICE-lite on it only with `ice-lite` true: the browser as DTLS client
     * sends its ClientHello on its first successful check, while rtpengine as a lite DTLS client waits for the
     * nominating check (~50 ms later in Chromium). With full ICE `passive` never got DTLS up (docs/media.md). Under
     * `active` (the default) rtpengine is the DTLS client whatever the ICE mode.
     */
    String dtlsRole(String role) {
        if (!DtlsRole.EITHER.equals(role)) return role;
        if (!dtlsOnActpass.equals("auto")) return dtlsOnActpass;
        return liteOnBrowserOffer(true) ? "passive" : "active";
    }

    /** Both legs in the same address family (IPv4). */
    public RtpEngineLegs(String browserInterface, String imsInterface, IceLite iceLite) {
        this(browserInterface, imsInterface, iceLite, false);
    }

    /** true: ICE-lite on every call (ALL); false: full ICE (OFF); both legs IPv4. */
    public RtpEngineLegs(String browserInterface, String imsInterface, boolean iceLite) {
        this(browserInterface, imsInterface, iceLite ? IceLite.ALL : IceLite.OFF, false);
    }

    /** Whether a browser offer carries ICE-lite: browserOpened = the call's first offer came from the browser. */
    boolean liteOnBrowserOffer(boolean browserOpened) {
        return iceLite == IceLite.ALL || (iceLite == IceLite.MT && !browserOpened);
    }

    /**
     * An SDP from the browser: ng `direction` [browser, IMS] (also on answers: the docs say rtpengine remembers it,
     * but sipwise/rtpengine#2012 saw answers need it), and on offers (iceLiteOnOffer non-null) the ICE-lite side.
     */
    void fromBrowser(Map<String, Object> cmd, String iceLiteOnOffer) {
        if (browserInterface != null) cmd.put(NgFlags.DIRECTION, List.of(browserInterface, imsInterface));
        if (imsIpv6) cmd.put(NgFlags.ADDRESS_FAMILY, IP6); // the SDP goes to IMS
        iceLite(cmd, iceLiteOnOffer);
    }

    /** An SDP from IMS: ng `direction` [IMS, browser]; on offers ICE-lite toward the browser (`forward`). */
    void fromIms(Map<String, Object> cmd, String iceLiteOnOffer) {
        if (browserInterface != null) cmd.put(NgFlags.DIRECTION, List.of(imsInterface, browserInterface));
        if (imsIpv6) cmd.put(NgFlags.ADDRESS_FAMILY, IP4); // the SDP goes to the browser
        iceLite(cmd, iceLiteOnOffer);
    }

    private void iceLite(Map<String, Object> cmd, String side) {
        if (iceLite != IceLite.OFF && side != null) cmd.put(NgFlags.ICE_LITE, side);
    }

    /**
     * Whether rtpengine's answer to the browser's offer that opened a call ({@code browserOffer}, as rtpengine got it)
     * leaves `a=ice-lite` out, where rtpengine is lite on that call. The browser made the offer, so it is the
     * controlling agent whether or not it takes rtpengine for a lite agent (RFC 8445 §6.1.1), but toward a lite agent
     * Chromium nominates (USE-CANDIDATE) only a pair it already found working, one check interval (~50 ms) after its
     * first check, while toward a full one its checks nominate at once; and rtpengine, lite either way (it answers
     * checks and sends none), takes the pair and, as the DTLS client (`active`), starts the handshake only on the
     * nominating check. A lite agent takes a nominated pair whether or not its answer got through, so a browser that
     * checks from an address rtpengine cannot answer (a second interface, a VPN: the hosts layout's browser, four
     * addresses, had no audio) must be told: under `auto` the attribute goes only when the offer's host candidates
     * name one address ({@link HostCandidates}); none or several, it stays. docs/media.md "What the browser is told".
     */
    boolean hidesLiteInAnswer(String browserOffer) {
        if (!liteOnBrowserOffer(true)) return false;
        return switch (liteInAnswers) {
            case TRUE -> false;
            case FALSE -> true;
            case AUTO -> HostCandidates.addresses(browserOffer).size() == 1;
        };
    }

    /**
     * rtpengine's SDP answer to an offer of the browser, as the browser gets it: without `a=ice-lite` when
     * {@code hideLite} ({@link #hidesLiteInAnswer} of the offer that opened the call; false on calls IMS opened, whose
     * first offer said `a=ice-lite`, which is what makes the answering browser controlling).
     */
    String answerToBrowser(String rtpengineSdp, boolean hideLite) {
        return hideLite ? IceLiteAttribute.removed(rtpengineSdp) : rtpengineSdp;
    }
}

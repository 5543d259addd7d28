package org.webrtcims.archfixture.clean.sip;

/** Fixture (PackageNeverEdgesTest): a SIP side that knows neither browser nor relay. */
public final class Ua {
    public void invite(String body) { }
}

package org.webrtcims.gw.sip;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sip.ResponseEvent;
import javax.sip.address.SipURI;
import javax.sip.message.Request;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * OPTIONS keepalive toward the P-CSCF ({@code lab.ims.keepalive-ms}, 0 = off). A P-CSCF that answers again after
 * one or more probes went unanswered may have restarted, and a registrar that keeps its bindings in memory (the
 * light Kamailio) has then forgotten every user the gateway registered: MT calls to them would get 404 until each
 * binding's next refresh (80 % of the granted expiry, 480 s by default). So the answer after a silence calls
 * {@code onBack}, which re-REGISTERs every binding at once. A probe counts as unanswered when no final response
 * came within {@link #deadlineMs} (the lesser of the interval and 2 s): JAIN-SIP retransmits an OPTIONS over
 * UDP for 32 s, and a late answer to a retransmission must not hide the gap. Any final response (also 4xx/5xx)
 * counts as an answer: the P-CSCF is there.
 */
final class RegistrarKeepalive {
    private static final Logger log = LoggerFactory.getLogger(RegistrarKeepalive.class);
    static final long MAX_DEADLINE_MS = 2000;

    private final SipUserAgent ua;
    private final SipRequests requests;
    private final String proxy;
    private final ScheduledExecutorService timer;
    private final Runnable onBack;
    final long intervalMs;
    final long deadlineMs;
    private long cseq = 1;
    private int missed;
    private long silentSinceMillis;

    /** One OPTIONS; settled once by its answer or its deadline, whichever comes first. */
    final class Probe {
        boolean settled;
    }

    RegistrarKeepalive(SipUserAgent ua, SipRequests requests, long intervalMs,
                       ScheduledExecutorService timer, Runnable onBack) {
        this.ua = ua;
        this.requests = requests;
        this.proxy = requests.proxyAddress();
        this.timer = timer;
        this.onBack = onBack;
        this.intervalMs = intervalMs;
        this.deadlineMs = Math.min(intervalMs, MAX_DEADLINE_MS);
    }

    void start() {
        if (intervalMs <= 0) return;
        timer.scheduleWithFixedDelay(this::probeQuietly, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
        log.info("OPTIONS keepalive toward the P-CSCF {} every {} ms (unanswered after {} ms)", proxy, intervalMs, deadlineMs);
    }

    private void probeQuietly() {
        try {
            probe();
        } catch (RuntimeException e) {
            log.warn("keepalive OPTIONS not sent: {}", e.toString());
        }
    }

    /** Sends one OPTIONS to the P-CSCF and arms its deadline; returns the probe (for tests). */
    Probe probe() {
        Probe p = new Probe();
        try {
            SipURI target = requests.proxyUri();
            javax.sip.address.Address from = requests.aor("keepalive");
            Request options = requests.newRequest(Request.OPTIONS, target, from, SipUserAgent.newTag(), from, ua.newCallId(),
                    cseq++, "keepalive");
            ua.sendRequest(options, new ResponseHandler() {
                @Override
                public void onResponse(ResponseEvent event) {
                    if (event.getResponse().getStatusCode() >= 200) answered(p);
                }

                @Override
                public void onTimeout() { missed(p); }
            });
        } catch (Exception e) {
            log.debug("keepalive OPTIONS not sent: {}", e.toString());
            missed(p); // nothing went out (e.g. a TCP/TLS connection refused): the P-CSCF is not there
            return p;
        }
        timer.schedule(() -> missed(p), deadlineMs, TimeUnit.MILLISECONDS);
        return p;
    }

    synchronized void answered(Probe p) {
        if (p.settled) return;
        p.settled = true;
        if (missed == 0) return;
        log.warn("the P-CSCF {} answers again after {} unanswered keepalives ({} ms of silence): it may have restarted "
                + "and lost the registrations; re-REGISTERing every user", proxy, missed, System.currentTimeMillis() - silentSinceMillis);
        missed = 0;
        onBack.run();
    }

    synchronized void missed(Probe p) {
        if (p.settled) return;
        p.settled = true;
        if (missed++ == 0) {
            silentSinceMillis = System.currentTimeMillis();
            log.warn("the P-CSCF {} did not answer a keepalive OPTIONS within {} ms", proxy, deadlineMs);
        }
    }

    synchronized int missedInARow() { return missed; }
}

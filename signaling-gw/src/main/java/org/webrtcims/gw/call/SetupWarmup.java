package org.webrtcims.gw.call;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.config.HostPort;
import org.webrtcims.gw.media.RtpEngineClient;
import org.webrtcims.gw.metrics.WarmupCalls;
import org.webrtcims.gw.sip.LoopbackUas;
import org.webrtcims.gw.sip.ResponseHandler;
import org.webrtcims.gw.sip.SipHeaders;
import org.webrtcims.gw.sip.SipUserAgent;

import javax.sip.ResponseEvent;
import javax.sip.header.CSeqHeader;
import javax.sip.header.RouteHeader;
import javax.sip.header.ToHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The start-up warm-up of the call set-up path (issue #26, docs/benchmarks.md "A start-up warm-up"). A fresh JVM runs
 * its first calls' code interpreted (SDP, JAIN-SIP's transactions and dialogs, bencode, Jackson): tens of milliseconds
 * per set-up step where a warm gateway needs under one. Before the web server opens (so before the gateway answers
 * its health check), this runs {@code lab.warmup.calls} (200 by default: the lab's gateway JIT is C1 alone, which compiles a
 * method after about 200 invocations) MO set-ups through the gateway's own code over real sockets, two at a time:
 * the browser's offer (Chromium's and Firefox's shapes in turn) through the call's media leg (sdp/BrowserSdp, with
 * the status lines the call's SIP extensions offer; a real ng `offer` on rtpengine), an INVITE built as a real MO
 * call's ({@link OutgoingCalls#initialInvite}, its Route dropped) from the gateway's SIP stack in a client transaction to a {@link LoopbackUas} on its SIP host (180, 200
 * with SDP), the ng `answer`, ACK and BYE in the dialog, rtpengine's `delete`; an MT leg's ng `offer` from IMS and its
 * ng `answer` from a browser's answer ({@link MediaLeg#bridgeBrowserAnswer}); the JSON of the browser's `call` and
 * `answer` and of the gateway's `ringing`, `answered` and `incoming`. Warm-up calls are no calls: not in the
 * registry, no CDR, no browser; {@link WarmupCalls} keeps them out of the set-up timeline, the ng meters and the
 * media reconciler. Skipped when rtpengine does not answer a ping or SIP toward IMS is not UDP; 0 turns it off.
 */
@Component
class SetupWarmup implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(SetupWarmup.class);
    /** Time one warm-up call may take before the warm-up gives up (a cold JVM needs ~100 ms for the first). */
    private static final long CALL_TIMEOUT_MS = 3000;
    /** Warm-up calls at once after the first (the lab's hosts have two cores; docs/benchmarks.md "A start-up warm-up"). */
    static final int PARALLEL = 2;

    private final int calls;
    private final SipUserAgent ua;
    private final CallMedia media;
    /** The SIP extensions of the call's dialog: the SDP status lines they offer, as on a real MO call. */
    private final DialogExtensions extensions;
    /** Builds the warm-up's INVITEs as a real MO call's ({@link OutgoingCalls#initialInvite}). */
    private final OutgoingCalls outgoing;
    private final RtpEngineClient rtp;
    private final ObjectMapper json;
    /** The warm-up's call-ids while they run: the timeline, the ng meters and the reconciler leave them out. */
    private final WarmupCalls warmups;
    private final String host;
    private volatile boolean running;
    /** Warm-up calls that went through (0 before start, when off or skipped). */
    private volatile int warmed;
    /** How long the last warm-up call took (ms), for the log line. */
    private volatile double lastMs;

    SetupWarmup(@Value("${lab.warmup.calls:200}") int calls, SipUserAgent ua, CallMedia media,
                DialogExtensions extensions, OutgoingCalls outgoing, RtpEngineClient rtp, ObjectMapper json, GatewayProperties props,
                WarmupCalls warmups) {
        this.extensions = extensions;
        this.outgoing = outgoing;
        this.calls = calls;
        this.warmups = warmups;
        this.ua = ua;
        this.media = media;
        this.rtp = rtp;
        this.json = json;
        String h = props.getSip().getHost() == null ? "" : props.getSip().getHost().replace("[", "").replace("]", "").trim();
        this.host = h.isEmpty() || h.equals("0.0.0.0") ? "127.0.0.1" : h.equals("::") ? "::1" : h; // the UAS binds an address, not a wildcard
    }

    /** Before the web server's lifecycle (it starts last): the gateway answers no browser until this returns. */
    @Override
    public int getPhase() { return 0; }

    @Override
    public void start() {
        running = true;
        if (calls <= 0) return;
        if (!"udp".equalsIgnoreCase(ua.transport())) {
            log.info("start-up warm-up skipped: SIP toward IMS is {}, the warm-up's loopback UAS speaks UDP", ua.transport());
            return;
        }
        if (!rtp.relays().ping()) {
            log.info("start-up warm-up skipped: rtpengine does not answer a ping");
            return;
        }
        long start = System.nanoTime();
        double first = 0;
        LoopbackUas uas = null;
        try {
            uas = LoopbackUas.start(host);
            long t = System.nanoTime();
            if (call(uas, 0)) { // the first alone: it loads the classes every later call uses
                warmed = 1;
                first = (System.nanoTime() - t) / 1e6;
                warmInParallel(uas);
            }
        } catch (Exception e) {
            log.info("start-up warm-up stopped: cannot start its loopback UAS on {} ({})", host, e.getMessage());
        } finally {
            if (uas != null) { // JAIN-SIP's stop takes about a second: not on the start's path
                Thread stop = new Thread(uas::close, "warmup-uas-stop");
                stop.setDaemon(true);
                stop.start();
            }
        }
        log.info("start-up warm-up: {} of {} MO set-ups through SIP and rtpengine, {} at a time, in {} ms (the first {} ms, the last {} ms)",
                warmed, calls, PARALLEL, (System.nanoTime() - start) / 1_000_000, String.format(java.util.Locale.ROOT, "%.1f", first),
                String.format(java.util.Locale.ROOT, "%.1f", lastMs));
    }

    /**
     * The calls after the first, {@link #PARALLEL} at a time (this thread one of them) until {@link #calls} went
     * through or one failed: most of a call's time is its round trips (SIP over loopback, rtpengine's ng), so two at
     * once take about half as long on two cores and run the same code as often.
     */
    private void warmInParallel(LoopbackUas uas) throws InterruptedException {
        java.util.concurrent.atomic.AtomicInteger left = new java.util.concurrent.atomic.AtomicInteger(calls - 1);
        java.util.concurrent.atomic.AtomicInteger done = new java.util.concurrent.atomic.AtomicInteger(1);
        java.util.concurrent.atomic.AtomicBoolean failed = new java.util.concurrent.atomic.AtomicBoolean();
        Runnable worker = () -> {
            for (int n; !failed.get() && (n = left.getAndDecrement()) > 0; ) {
                long t = System.nanoTime();
                if (!call(uas, n)) {
                    failed.set(true);
                    return;
                }
                lastMs = (System.nanoTime() - t) / 1e6;
                warmed = done.incrementAndGet();
            }
        };
        Thread[] others = new Thread[PARALLEL - 1];
        for (int i = 0; i < others.length; i++) {
            others[i] = new Thread(worker, "warmup-" + (i + 2));
            others[i].start();
        }
        worker.run();
        for (Thread o : others) o.join();
        warmed = done.get(); // the threads' last writes may have come in either order
    }

    /**
     * Warm-up call number {@code n} (0 the first), its media deleted at the end; false (logged) when it failed and the
     * warm-up should stop.
     */
    private boolean call(LoopbackUas uas, int n) {
        String id = "warmup-" + ua.newCallId();
        warmups.begin(id);
        Call mo = new Call(id, Direction.MO, "warmup", "warmup", "warmup@" + host, SipUserAgent.newTag(), CallState.CALLING,
                media, ua::sendInDialog);
        Call mt = new Call(id + "-mt", Direction.MT, "warmup", "warmup", "warmup@" + host, SipUserAgent.newTag(), CallState.CALLING,
                media, ua::sendInDialog);
        warmups.begin(mt.id);
        try {
            String offer = json.readTree(json.writeValueAsString(CallMessages.of("call", null, "to", "warmup",
                    "sdp", browserOffer(n)))).get("sdp").asText();
            String imsSdp;
            CompletableFuture<Void> done = new CompletableFuture<>();
            synchronized (mo) { // as OutgoingCalls.place; the responses wait for the call's lock
                mo.dialog().caller("sip:warmup@" + HostPort.uriHost(host), "warmup");
                MediaLeg leg = mo.media();
                imsSdp = leg.bridgeBrowserOffer(offer, extensions.offering(mo)); // the extensions' status lines (preconditions)
                leg.sentToIms(imsSdp);
                // the real MO INVITE's builder (its headers' classes and code, before a real call needs them)
                Request invite = outgoing.initialInvite(mo, uas.uri("warmup"), 1);
                invite.removeHeader(RouteHeader.NAME); // straight to the UAS, not the P-CSCF
                mo.dialog().inviteSent(ua.sendRequest(invite, new InviteResponses(mo, done)));
            }
            try {
                done.get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new IllegalStateException("the INVITE and BYE took over " + CALL_TIMEOUT_MS + " ms");
            }
            synchronized (mt) { // as IncomingCalls: the IMS offer to the browser, then the browser's answer to IMS
                String toBrowser = mt.media().bridgeImsOffer(imsSdp);
                json.writeValueAsString(CallMessages.of("incoming", mt.id, "from", "warmup", "sdp", toBrowser));
                mt.dialog().localTag(SipUserAgent.newTag()); // the 200's To tag: rtpengine's answer names it
                String answer = json.readTree(json.writeValueAsString(CallMessages.of("answer", mt.id,
                        "sdp", browserAnswer(toBrowser)))).get("sdp").asText();
                mt.media().bridgeBrowserAnswer(answer);
            }
            return true;
        } catch (Exception e) {
            Throwable cause = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null ? e.getCause() : e;
            log.info("start-up warm-up stopped at a failed call: {}", cause.getMessage() != null ? cause.getMessage() : cause.toString());
            return false;
        } finally {
            mo.media().delete();
            mt.media().delete();
            warmups.end(mo.id);
            warmups.end(mt.id);
        }
    }

    /**
     * The INVITE's responses as OutgoingCalls takes them, on the same base (CallResponses: the call's SIP flow, its
     * lock): 180 → EARLY, `ringing`; 200 → ng answer, ACK, CONFIRMED, `answered`; then BYE.
     */
    private final class InviteResponses extends CallResponses {
        private final CompletableFuture<Void> done;

        InviteResponses(Call c, CompletableFuture<Void> done) {
            super(c);
            this.done = done;
        }

        @Override
        void response(ResponseEvent event, Response r, int code) { // the call's lock is held
            try {
                String tag = ((ToHeader) r.getHeader(ToHeader.NAME)).getTag();
                if (code < 200) {
                    c.dialog().followFirstFork(event.getDialog(), tag, c.outgoingEarly());
                    if (code > 100 && c.transition(CallState.EARLY)) json.writeValueAsString(CallMessages.of("ringing", c.id));
                    return;
                }
                if (code >= 300) throw new IllegalStateException("the loopback UAS answered " + code);
                c.dialog().follow(event.getDialog(), tag);
                c.ack(r, "the warm-up INVITE");
                c.finalStatus(code);
                String answer = c.media().bridgeImsAnswer(SipHeaders.sdp(r));
                c.transition(CallState.CONFIRMED);
                json.writeValueAsString(CallMessages.of("answered", c.id, "sdp", answer));
                javax.sip.Dialog d = event.getDialog();
                ua.sendInDialog(d, d.createRequest(Request.BYE), new ByeResponse(done));
            } catch (Exception e) {
                done.completeExceptionally(e);
            }
        }

        @Override
        void timeout() { done.completeExceptionally(new IllegalStateException("no answer from the loopback UAS")); }
    }

    private static final class ByeResponse implements ResponseHandler {
        private final CompletableFuture<Void> done;

        ByeResponse(CompletableFuture<Void> done) { this.done = done; }

        @Override
        public void onResponse(ResponseEvent event) {
            int code = event.getResponse().getStatusCode();
            if (code >= 300) done.completeExceptionally(new IllegalStateException("the loopback UAS answered the BYE " + code));
            else if (code >= 200) done.complete(null);
        }

        @Override
        public void onTimeout() { done.completeExceptionally(new IllegalStateException("no answer to the BYE")); }
    }

    /**
     * Warm-up call {@code n}'s browser offer: Chromium's shape for even {@code n}, Firefox's for odd. The two browsers'
     * offers take different code in the gateway (Firefox's mDNS host names and zero address, sdp/MdnsSdp; its codec
     * list and attribute order), and code a warm-up never ran is still interpreted at a real call: the second MO call
     * of a Firefox run spent 2.3-4.4 ms from the WebSocket to the ng offer against Chromium's 1.2-1.6 while the
     * warm-up sent Chromium's offer alone (docs/benchmarks.md "Session 18").
     */
    private String browserOffer(int n) {
        return n % 2 == 0 ? chromiumOffer() : FIREFOX_OFFER;
    }

    /** A browser's audio offer as Chromium makes it (BUNDLE, ICE, DTLS, Opus with RED and telephone-event), on the SIP host. */
    private String chromiumOffer() {
        String ip = host.contains(":") ? "IP6" : "IP4";
        return "v=0\r\no=- 4611731400430051336 2 IN " + ip + " " + host + "\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\n"
                + "a=extmap-allow-mixed\r\na=msid-semantic: WMS warmup\r\n"
                + "m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126\r\nc=IN " + ip + " " + host + "\r\n"
                + "a=rtcp:9 IN " + ip + " " + host + "\r\n"
                + "a=candidate:1 1 udp 2122260223 " + host + " 9 typ host generation 0 network-id 1\r\n"
                + "a=ice-ufrag:wUpq\r\na=ice-pwd:warmupwarmupwarmupwarmup\r\na=ice-options:trickle\r\n"
                + "a=fingerprint:sha-256 3B:1C:9F:27:A0:4E:66:D2:81:5B:C3:0A:F4:12:7D:E9:58:B6:20:4C:93:AD:1F:E7:65:0B:D8:3A:72:C1:9E:44\r\n"
                + "a=setup:actpass\r\na=mid:0\r\na=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level\r\n"
                + "a=sendrecv\r\na=msid:warmup warmup-audio\r\na=rtcp-mux\r\n"
                + "a=rtpmap:111 opus/48000/2\r\na=rtcp-fb:111 transport-cc\r\na=fmtp:111 minptime=10;useinbandfec=1\r\n"
                + "a=rtpmap:63 red/48000/2\r\na=fmtp:63 111/111\r\na=rtpmap:9 G722/8000\r\na=rtpmap:0 PCMU/8000\r\n"
                + "a=rtpmap:8 PCMA/8000\r\na=rtpmap:13 CN/8000\r\na=rtpmap:110 telephone-event/48000\r\n"
                + "a=rtpmap:126 telephone-event/8000\r\na=ssrc:1001 cname:warmup\r\n";
    }

    private static final java.util.regex.Pattern OFFER_MID = java.util.regex.Pattern.compile("(?m)^a=mid:(\\S+)\r?$");
    private static final java.util.regex.Pattern OFFER_AUDIO = java.util.regex.Pattern.compile("(?m)^m=audio \\d+ \\S+ (\\d+)");
    private static final java.util.regex.Pattern TELEPHONE_EVENT = java.util.regex.Pattern.compile("(?m)^a=rtpmap:(\\d+) telephone-event/8000\r?$");
    /** Any rtpmap line: payload type, encoding (one pattern for every warm-up call, not one compiled per call). */
    private static final java.util.regex.Pattern RTPMAP = java.util.regex.Pattern.compile("(?m)^a=rtpmap:(\\d+) (\\S+)\r?$");

    /**
     * The browser's answer to the MT leg's offer {@code offer} (rtpengine's, to the browser) as Chromium makes it: the
     * offer's mid in one BUNDLE group, its first audio codec and telephone-event, ICE, DTLS as the active side, a host
     * candidate on the SIP host. rtpengine takes it as a real MT call's answer (MediaLeg.bridgeBrowserAnswer).
     */
    private String browserAnswer(String offer) {
        java.util.regex.Matcher mid = OFFER_MID.matcher(offer);
        java.util.regex.Matcher audio = OFFER_AUDIO.matcher(offer);
        if (!audio.find()) throw new IllegalStateException("the MT leg's offer to the browser has no audio m-line");
        String m = mid.find() ? mid.group(1) : "0";
        String pt = audio.group(1);
        String encoding = null;
        for (java.util.regex.Matcher r = RTPMAP.matcher(offer); encoding == null && r.find(); ) {
            if (r.group(1).equals(pt)) encoding = r.group(2);
        }
        if (encoding == null) throw new IllegalStateException("the MT leg's offer to the browser has no rtpmap for " + pt);
        java.util.regex.Matcher te = TELEPHONE_EVENT.matcher(offer);
        String ev = te.find() ? te.group(1) : null;
        String ip = host.contains(":") ? "IP6" : "IP4";
        return "v=0\r\no=- 5123873922174441530 2 IN " + ip + " " + host + "\r\ns=-\r\nt=0 0\r\na=group:BUNDLE " + m + "\r\n"
                + "a=extmap-allow-mixed\r\na=msid-semantic: WMS warmup\r\n"
                + "m=audio 9 UDP/TLS/RTP/SAVPF " + pt + (ev == null ? "" : " " + ev) + "\r\nc=IN " + ip + " " + host + "\r\n"
                + "a=rtcp:9 IN " + ip + " " + host + "\r\n"
                + "a=candidate:2 1 udp 2122260223 " + host + " 9 typ host generation 0 network-id 1\r\n"
                + "a=ice-ufrag:wUpr\r\na=ice-pwd:warmupanswerwarmupanswer\r\na=ice-options:trickle\r\n"
                + "a=fingerprint:sha-256 5D:2E:8A:36:B1:5F:77:E3:92:6C:D4:1B:05:23:8E:FA:69:C7:31:5D:A4:BE:20:F8:76:1C:E9:4B:83:D2:AF:55\r\n"
                + "a=setup:active\r\na=mid:" + m + "\r\na=sendrecv\r\na=msid:warmup warmup-audio\r\na=rtcp-mux\r\n"
                + "a=rtpmap:" + pt + " " + encoding + "\r\n"
                + (ev == null ? "" : "a=rtpmap:" + ev + " telephone-event/8000\r\n")
                + "a=ssrc:2002 cname:warmup\r\n";
    }

    /** The host name of {@link #FIREFOX_OFFER}'s candidates, an mDNS name as Firefox makes them. */
    private static final String MDNS = "a0c1e2f3-4455-4677-8899-aabbccddeeff.local";

    /**
     * A browser's audio offer as Firefox makes it at its defaults: the host candidates behind an mDNS name (UDP and
     * TCP, both components), `c=IN IP4 0.0.0.0`, `a=rtcp` naming the mDNS host, Opus, G722, PCMU, PCMA and
     * telephone-event.
     */
    private static final String FIREFOX_OFFER = "v=0\r\no=mozilla...THIS_IS_SDPARTA-99.0 2362916255615792538 0 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n"
                + "a=sendrecv\r\n"
                + "a=fingerprint:sha-256 40:2A:AA:B1:E9:FC:70:F8:68:2C:01:05:F3:45:2F:66:75:E7:88:34:BE:22:52:44:D7:9F:D1:BF:7A:40:D4:3F\r\n"
                + "a=group:BUNDLE 0\r\na=ice-options:trickle\r\na=msid-semantic:WMS *\r\n"
                + "m=audio 9 UDP/TLS/RTP/SAVPF 109 9 0 8 101\r\nc=IN IP4 0.0.0.0\r\n"
                + "a=candidate:0 1 UDP 2122252543 " + MDNS + " 49527 typ host\r\n"
                + "a=candidate:1 1 TCP 2105524479 " + MDNS + " 9 typ host tcptype active\r\n"
                + "a=candidate:0 2 UDP 2122252542 " + MDNS + " 53821 typ host\r\n"
                + "a=candidate:1 2 TCP 2105524478 " + MDNS + " 9 typ host tcptype active\r\n"
                + "a=sendrecv\r\na=end-of-candidates\r\n"
                + "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level\r\n"
                + "a=extmap:2/recvonly urn:ietf:params:rtp-hdrext:csrc-audio-level\r\n"
                + "a=extmap:3 urn:ietf:params:rtp-hdrext:sdes:mid\r\n"
                + "a=extmap:7 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\r\n"
                + "a=extmap-allow-mixed\r\na=fmtp:109 maxplaybackrate=48000;stereo=1;useinbandfec=1\r\na=fmtp:101 0-15\r\n"
                + "a=ice-pwd:6e4725417ded6f1f3728c05c8660a195\r\na=ice-ufrag:68cf17ea\r\na=mid:0\r\n"
                + "a=msid:{b927ad8f-6499-42a0-9396-3c28f893e3b3} {7369b4f4-e01a-4790-9029-699e6588448c}\r\n"
                + "a=rtcp:53821 IN IP4 " + MDNS + "\r\n"
                + "a=rtcp-fb:109 transport-cc\r\na=rtcp-fb:9 transport-cc\r\na=rtcp-fb:0 transport-cc\r\na=rtcp-fb:8 transport-cc\r\n"
                + "a=rtcp-mux\r\na=rtpmap:109 opus/48000/2\r\na=rtpmap:9 G722/8000/1\r\na=rtpmap:0 PCMU/8000\r\n"
                + "a=rtpmap:8 PCMA/8000\r\na=rtpmap:101 telephone-event/8000\r\na=setup:actpass\r\n"
                + "a=ssrc:629827391 cname:{fd0f8810-be18-4186-a459-1fb744cfeb2a}\r\n";

    /** Warm-up calls that went through at start. */
    int warmed() { return warmed; }

    @Override
    public void stop() { running = false; }

    @Override
    public boolean isRunning() { return running; }
}

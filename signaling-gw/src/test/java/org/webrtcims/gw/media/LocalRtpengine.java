package org.webrtcims.gw.media;

import java.io.File;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * A real rtpengine for unit tests, started the way media-relay/start-rtpengine.sh starts it (userspace
 * forwarding, no config file) on a free loopback ng port and a random 100-port media range, and stopped
 * by its own PID. Which rtpengine:
 * <ul>
 *   <li>{@code -Drtpengine.ng=host:port}: one already running there (nothing is started or stopped);</li>
 *   <li>otherwise the binary {@code -Drtpengine.bin} (default: {@code rtpengine} on the PATH); when it is
 *       missing the test FAILS, it does not skip (./lab installs rtpengine-daemon before the unit tests);</li>
 *   <li>{@code -Drtpengine.skip=true}: the tests are skipped, explicitly (e.g. plain mvn on a machine
 *       without rtpengine).</li>
 * </ul>
 */
public final class LocalRtpengine implements AutoCloseable {
    static final String SKIP = "rtpengine.skip";

    private final Process process;
    private final Path logFile;
    public final InetSocketAddress ng;
    /** Loopback port range rtpengine takes media ports from. */
    final int portMin;
    final int portMax;

    private LocalRtpengine(Process process, Path logFile, InetSocketAddress ng, int portMin, int portMax) {
        this.process = process;
        this.logFile = logFile;
        this.ng = ng;
        this.portMin = portMin;
        this.portMax = portMax;
    }

    /** An external rtpengine (rtpengine.ng), or a started one; fails with a clear message when there is none. */
    public static LocalRtpengine start() throws Exception {
        return start(List.of("--interface=127.0.0.1"));
    }

    /**
     * As {@link #start()}, with these --interface options (e.g. named ones); never an external rtpengine, whose
     * interfaces the test cannot choose (with -Drtpengine.ng such a test is skipped and says so).
     */
    static LocalRtpengine start(List<String> interfaces) throws Exception {
        String ext = System.getProperty("rtpengine.ng");
        org.junit.jupiter.api.Assumptions.assumeTrue(interfaces.equals(List.of("--interface=127.0.0.1")) || ext == null || ext.isBlank(),
                "-Drtpengine.ng: an external rtpengine's interfaces cannot be chosen, so this test needs its own");
        assumeFalse(Boolean.getBoolean(SKIP), "-D" + SKIP + "=true: real-rtpengine tests skipped on request");
        String external = System.getProperty("rtpengine.ng");
        if (external != null && !external.isBlank()) {
            int colon = external.lastIndexOf(':');
            if (colon < 1) fail("-Drtpengine.ng must be host:port, got '" + external + "'");
            return new LocalRtpengine(null, null,
                    new InetSocketAddress(external.substring(0, colon), Integer.parseInt(external.substring(colon + 1))), 0, 0);
        }
        String bin = resolve(System.getProperty("rtpengine.bin", "rtpengine"));
        if (bin == null) {
            fail("rtpengine binary '" + System.getProperty("rtpengine.bin", "rtpengine") + "' not found on the PATH: "
                    + "install it (apt-get install rtpengine-daemon; ./lab test does), point -Drtpengine.bin at it, "
                    + "use -Drtpengine.ng=host:port for a running one, or skip these tests with -D" + SKIP + "=true");
        }
        int ngPort = freeUdpPort();
        int base = 20000 + 100 * ThreadLocalRandom.current().nextInt(100); // 20000..29999, clear of start-rtpengine.sh's
        InetSocketAddress ng = new InetSocketAddress(InetAddress.getLoopbackAddress(), ngPort);
        Path log = Files.createTempFile("rtpengine-unit-", ".log");
        List<String> cmd = new ArrayList<>(List.of(bin, "--config-file=none", "--foreground", "--log-stderr", "--table=-1",
                "--listen-ng=127.0.0.1:" + ngPort, "--port-min=" + base, "--port-max=" + (base + 99)));
        cmd.addAll(interfaces);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        LocalRtpengine r = new LocalRtpengine(p, log, ng, base, base + 99);
        r.awaitPong(Duration.ofSeconds(10));
        return r;
    }

    private void awaitPong(Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        try (NgClient client = new NgClient(ng, Duration.ofMillis(200), 1)) {
            RtpEngineClient rtp = Clients.over(client);
            while (System.nanoTime() < deadline) {
                if (!process.isAlive()) {
                    fail("rtpengine exited with " + process.exitValue() + " before answering ping:\n" + tail());
                }
                if (rtp.relays().ping()) return; // false while it is not listening yet
                Thread.sleep(100);
            }
        }
        close();
        fail("rtpengine (pid " + process.pid() + ") did not answer ping on " + ng + " within " + within.toMillis() + " ms:\n" + tail());
    }

    private String tail() {
        try {
            List<String> lines = Files.readAllLines(logFile);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Stops the rtpengine this fixture started (SIGTERM to its PID, then SIGKILL); an external one is left alone. */
    @Override
    public void close() throws InterruptedException {
        if (process == null || !process.isAlive()) return;
        process.destroy();
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
        try {
            Files.deleteIfExists(logFile);
        } catch (IOException ignored) {
            // a temp file
        }
    }

    private static String resolve(String bin) {
        if (bin.contains(File.separator)) return new File(bin).canExecute() ? bin : null;
        String path = System.getenv("PATH");
        for (String dir : (path == null ? "" : path).split(File.pathSeparator)) {
            File f = new File(dir, bin);
            if (f.canExecute()) return f.getPath();
        }
        for (String dir : List.of("/usr/bin", "/usr/sbin", "/usr/local/bin")) { // rtpengine-daemon's place
            File f = new File(dir, bin);
            if (f.canExecute()) return f.getPath();
        }
        return null;
    }

    private static int freeUdpPort() throws IOException {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            return s.getLocalPort();
        }
    }

    /**
     * One rtpengine for a test class: {@code @RegisterExtension static final LocalRtpengine.PerClass RTPENGINE = new
     * LocalRtpengine.PerClass();} starts it before the class's tests ({@link #start()}) and stops it after them.
     */
    public static final class PerClass implements org.junit.jupiter.api.extension.BeforeAllCallback,
            org.junit.jupiter.api.extension.AfterAllCallback {
        private LocalRtpengine rtpengine;

        @Override
        public void beforeAll(org.junit.jupiter.api.extension.ExtensionContext context) throws Exception {
            rtpengine = LocalRtpengine.start();
        }

        @Override
        public void afterAll(org.junit.jupiter.api.extension.ExtensionContext context) throws Exception {
            if (rtpengine != null) rtpengine.close();
            rtpengine = null;
        }

        /** Its ng address. */
        public InetSocketAddress ng() { return rtpengine.ng; }
    }
}

package org.webrtcims.gw;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gateway's package dependency direction (docs/architecture.md, "Gateway packages"):
 * api → call → sip → config → media → sdp → net → metrics; each package may use only those after it. Read from the imports
 * and fully qualified names of src/main.
 */
class PackageDependenciesTest {
    private static final List<String> ORDER = List.of("api", "failover", "call", "sip", "config", "media", "sdp", "net", "metrics");
    private static final Pattern USE = Pattern.compile("org\\.webrtcims\\.gw\\.([a-z]+)\\.");

    @Test
    void everyPackageUsesOnlyThePackagesBelowIt() throws IOException {
        Path root = Path.of("src/main/java/org/webrtcims/gw");
        assertTrue(Files.isDirectory(root), "run from signaling-gw/ (Maven does): " + root.toAbsolutePath());
        List<String> wrong = new ArrayList<>();
        int files = 0;
        try (Stream<Path> all = Files.walk(root)) {
            for (Path f : all.filter(p -> p.toString().endsWith(".java")).toList()) {
                Path rel = root.relativize(f);
                if (rel.getNameCount() < 2) continue; // GatewayApplication: the top, it may use anything
                files++;
                String from = rel.getName(0).toString();
                assertTrue(ORDER.contains(from), "a package the order does not know: " + from + " (add it here and in the doc)");
                Matcher m = USE.matcher(Files.readString(f));
                while (m.find()) {
                    String to = m.group(1);
                    if (!to.equals(from) && ORDER.indexOf(to) < ORDER.indexOf(from)) wrong.add(rel + " uses " + to);
                }
            }
        }
        assertTrue(files > 50, "read the sources: " + files);
        assertEquals(List.of(), wrong, "upward uses");
    }
}

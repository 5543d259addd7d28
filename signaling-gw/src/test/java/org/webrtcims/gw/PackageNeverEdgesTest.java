package org.webrtcims.gw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The never-edges of PackageNeverEdges on the gateway's classes, and on two fixtures (test sources,
 * org.webrtcims.archfixture): a clean package set that passes, and one where each package adds one forbidden
 * import, which every rule must catch.
 */
class PackageNeverEdgesTest {
    private static final String FIXTURE = "org.webrtcims.archfixture";

    /** Each rule's violations, one line each ("rule: violation"); empty when all hold. */
    private static List<String> violations(String root, JavaClasses classes) {
        List<String> out = new ArrayList<>();
        for (ArchRule rule : PackageNeverEdges.rules(root)) {
            EvaluationResult result = rule.evaluate(classes);
            for (String d : result.getFailureReport().getDetails()) out.add(rule.getDescription() + ": " + d);
        }
        return out;
    }

    @Test
    void theGatewayHasNoNeverEdge() {
        JavaClasses gateway = GatewayClasses.get();
        assertTrue(gateway.size() > 50, "read the gateway's compiled classes (target/classes): " + gateway.size());
        assertEquals(List.of(), violations("org.webrtcims.gw", gateway),
                "never-edges between the gateway's packages (docs/architecture.md \"Gateway packages\")");
    }

    @Test
    void aCleanFixturePasses() {
        JavaClasses clean = new ClassFileImporter().importPackages(FIXTURE + ".clean");
        assertEquals(5, clean.size(), "the clean fixture's five classes were read");
        assertEquals(List.of(), violations(FIXTURE + ".clean", clean), "the clean fixture has no never-edge");
    }

    @Test
    void eachForbiddenImportInTheFixtureIsReported() {
        String root = FIXTURE + ".broken";
        JavaClasses broken = new ClassFileImporter().importPackages(root);
        List<String> found = violations(root, broken);
        for (String[] edge : List.of(
                new String[] {"SDP knows no call", ".sdp.Parser", ".call.Leg"},
                new String[] {"the relay door (media) knows no call state", ".media.Door", ".call.Leg"},
                new String[] {"SIP knows no browser and no relay", ".sip.Ua", ".media.Door"},
                new String[] {"the browser face (api) reaches SIP and media only through calls", ".api.Page", ".media.Door"})) {
            assertTrue(found.stream().anyMatch(v -> v.contains(edge[0]) && v.contains(root + edge[1])
                            && v.contains(root + edge[2])),
                    "the rule '" + edge[0] + "' must report " + edge[1] + " -> " + edge[2] + "; reported: " + found);
        }
    }
}

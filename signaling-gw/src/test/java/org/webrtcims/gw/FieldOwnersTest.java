package org.webrtcims.gw;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FieldOwners on the gateway (no field of call/ is assigned outside its own class) and on a fixture
 * (org.webrtcims.archfixture.fields, test sources) whose classes write each other's fields, every way the rule must catch.
 */
class FieldOwnersTest {
    private static final String FIXTURE = "org.webrtcims.archfixture.fields";

    private static List<String> violations(String callPackage, JavaClasses classes) {
        return FieldOwners.rule(callPackage).evaluate(classes).getFailureReport().getDetails();
    }

    @Test
    void noFieldOfTheCallPackageIsAssignedOutsideItsClass() {
        JavaClasses gateway = GatewayClasses.get();
        assertTrue(gateway.size() > 50, "read the gateway's compiled classes (target/classes): " + gateway.size());
        assertEquals(List.of(), violations("org.webrtcims.gw.call", gateway),
                "fields of call/ assigned outside the class that declares them");
    }

    @Test
    void theFixturesWritesOfAnotherClasssFieldsAreEachReported() {
        JavaClasses fixture = new ClassFileImporter().importPackages(FIXTURE);
        assertEquals(5, fixture.size(), "the fixture's classes were read (Leg, Leg$Codec, Teardown, Calls, Page): "
                + fixture.stream().map(c -> c.getSimpleName()).toList());
        List<String> found = violations(FIXTURE + ".call", fixture);
        for (String[] write : List.of(
                new String[] {FIXTURE + ".call.Teardown assigns " + FIXTURE + ".call.Leg.state", "another class of the call package"},
                new String[] {FIXTURE + ".api.Page assigns " + FIXTURE + ".call.Leg.state", "a class of another package"},
                new String[] {FIXTURE + ".call.Leg assigns " + FIXTURE + ".call.Leg$Codec.name", "the outer class into its nested one"},
                new String[] {FIXTURE + ".call.Leg$Codec assigns " + FIXTURE + ".call.Leg.state", "a nested class into its outer one"})) {
            assertTrue(found.stream().anyMatch(v -> v.startsWith(write[0] + " ")),
                    "the write by " + write[1] + " must be reported: '" + write[0] + "'; reported: " + found);
        }
        assertEquals(4, found.size(), "the fixture's own writes (Leg's constructor and setter, Calls) are no violation; reported: " + found);
    }
}

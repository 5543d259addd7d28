package org.webrtcims.gw;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchRule;
import java.util.List;
import java.util.Set;

/**
 * The edges between the gateway's packages that must never exist (docs/architecture.md "Gateway packages"), beside
 * the layer order of PackageDependenciesTest, as ArchUnit rules over the compiled classes under a root package:
 * the gateway's (org.webrtcims.gw) or a fixture's (PackageNeverEdgesTest). Each rule's text says why.
 */
final class PackageNeverEdges {
    private PackageNeverEdges() {
    }

    /**
     * Known exceptions, by the class used (root-relative): the browser face still logs users in through SIP's
     * registration client directly (RegistrationClient, the registration split's one API class, with its exception and
     * the identities it answers); moving them behind call/ is still to do.
     */
    static final Set<String> API_MAY_USE = Set.of("sip.RegistrationClient", "sip.RegistrationException", "sip.RegisteredIdentities");

    /** The four rules for the packages under {@code root}. */
    static List<ArchRule> rules(String root) {
        return List.of(
                never(root, "sdp", "SDP knows no call and no rtpengine", "call", "media"),
                never(root, "media", "the relay door (media) knows no call state and no browser", "call", "api"),
                never(root, "sip", "SIP knows no browser and no relay", "api", "media"),
                noClasses().that().resideInAPackage(root + ".api..")
                        .should().dependOnClassesThat(resideInAnyPackage(root + ".sip..", root + ".media..")
                                .and(not(exception(root))))
                        .because("the browser face (api) reaches SIP and media only through calls (call)"));
    }

    private static ArchRule never(String root, String from, String why, String... to) {
        String[] packages = new String[to.length];
        for (int i = 0; i < to.length; i++) packages[i] = root + "." + to[i] + "..";
        return noClasses().that().resideInAPackage(root + "." + from + "..")
                .should().dependOnClassesThat().resideInAnyPackage(packages)
                .because(why);
    }

    /** One of API_MAY_USE, or a class nested in one. */
    private static DescribedPredicate<JavaClass> exception(String root) {
        return DescribedPredicate.describe("a known exception " + API_MAY_USE, c -> API_MAY_USE.stream()
                .map(e -> root + "." + e)
                .anyMatch(e -> c.getName().equals(e) || c.getName().startsWith(e + "$")));
    }
}

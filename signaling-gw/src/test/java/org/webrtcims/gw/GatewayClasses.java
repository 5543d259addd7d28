package org.webrtcims.gw;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/** The gateway's compiled classes (target/classes, no tests), read once for the architecture tests that share a JVM. */
final class GatewayClasses {
    private static JavaClasses classes;

    private GatewayClasses() {
    }

    static synchronized JavaClasses get() {
        if (classes == null) {
            classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                    .importPackages("org.webrtcims.gw");
        }
        return classes;
    }
}

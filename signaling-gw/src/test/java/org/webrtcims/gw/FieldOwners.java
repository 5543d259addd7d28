package org.webrtcims.gw;

import com.tngtech.archunit.core.domain.AccessTarget.FieldAccessTarget;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaFieldAccess;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

/**
 * "No field of a call or of its owners is written outside its own class" (issue #24) as an ArchUnit rule over compiled
 * classes: every assignment of a field declared in the call package (Call, Dialog, MediaLeg, the per-extension state,
 * the components) is made by the class that declares the field. Not even a nested class may write its outer class's
 * field, nor the outer class a nested one's: each goes through a method of the owner. Used by FieldOwnersTest on the
 * gateway and on its fixture (org.webrtcims.archfixture.fields).
 */
final class FieldOwners {
    private FieldOwners() {
    }

    /** The rule for the fields declared in package {@code callPackage} (and below it), written from any class under test. */
    static ArchRule rule(String callPackage) {
        return classes().should(new ArchCondition<JavaClass>("assign only fields of their own class, where the field is declared in "
                + callPackage) {
            @Override
            public void check(JavaClass writer, ConditionEvents events) {
                for (JavaFieldAccess access : writer.getFieldAccessesFromSelf()) {
                    if (access.getAccessType() != JavaFieldAccess.AccessType.SET) continue;
                    FieldAccessTarget target = access.getTarget();
                    JavaClass owner = target.resolveMember().map(JavaField::getOwner).orElse(target.getOwner());
                    if (!owner.getPackageName().equals(callPackage) && !owner.getPackageName().startsWith(callPackage + ".")) continue;
                    if (owner.equals(writer)) continue;
                    events.add(SimpleConditionEvent.violated(access, writer.getName() + " assigns " + owner.getName() + "."
                            + target.getName() + " " + access.getSourceCodeLocation() + ": only " + owner.getSimpleName()
                            + " may write its fields; give it a method for this"));
                }
            }
        }).because("each field of a call and of its owners is written only by the class that owns it (docs/architecture.md)");
    }
}

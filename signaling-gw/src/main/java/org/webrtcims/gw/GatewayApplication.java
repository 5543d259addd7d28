package org.webrtcims.gw;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

@SpringBootApplication
@ConfigurationPropertiesScan
public class GatewayApplication {
    public static void main(String[] args) {
        try {
            SpringApplication.run(GatewayApplication.class, args);
        } catch (Throwable e) {
            // Spring has logged the whole chain; end with the root cause on one line (what ./lab shows) and
            // exit, since threads started before the failure (the SIP stack's) would keep the JVM alive.
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) root = root.getCause();
            System.err.println("gateway: cannot start: " + root.getMessage());
            System.exit(1);
        }
    }
}

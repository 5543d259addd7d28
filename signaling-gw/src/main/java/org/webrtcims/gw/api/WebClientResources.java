package org.webrtcims.gw.api;

import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.webrtcims.gw.config.GatewayProperties;

import java.nio.file.Path;

/** Serves the web client folder (`--lab.webclient.dir`) at "/". */
@Configuration
public class WebClientResources implements WebMvcConfigurer {
    private final String dir;

    public WebClientResources(GatewayProperties props) { this.dir = props.getWebclient().getDir(); }

    @Override
    public void addResourceHandlers(ResourceHandlerRegistry registry) {
        if (dir == null || dir.isBlank()) return;
        String location = Path.of(dir).toAbsolutePath().normalize().toUri().toString();
        registry.addResourceHandler("/**").addResourceLocations(location.endsWith("/") ? location : location + "/");
    }

    @Override
    public void addViewControllers(ViewControllerRegistry registry) {
        if (dir != null && !dir.isBlank()) registry.addViewController("/").setViewName("forward:/index.html");
    }
}

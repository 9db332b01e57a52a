package io.icebergscan.planning.iceberg.autoconfigure.repositories;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** An application whose package holds an Iceberg repository. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class RepositoriesApplication {
}

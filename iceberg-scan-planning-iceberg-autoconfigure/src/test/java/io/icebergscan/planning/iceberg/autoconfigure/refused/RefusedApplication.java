package io.icebergscan.planning.iceberg.autoconfigure.refused;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** An application with a query method Iceberg cannot plan. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class RefusedApplication {
}

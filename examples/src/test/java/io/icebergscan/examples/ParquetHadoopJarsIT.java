package io.icebergscan.examples;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged example carries the part of Hadoop that Parquet reads through, as docs/reading.md adds it: hadoop-common
 * and hadoop-mapreduce-client-core with the bill of materials' exclusions, and of their dependencies the four that
 * Hadoop's Configuration needs; not the 50 MB shaded client, nor the servers, security and clients hadoop-common
 * names. {@link AotStartIT} reads the demo table's Parquet files from the same jar.
 */
class ParquetHadoopJarsIT {

  /** What hadoop-common and hadoop-mapreduce-client-core bring without the exclusions, by jar name. */
  private static final List<String> EXCLUDED = List.of("hadoop-client-", "hadoop-auth-", "hadoop-annotations-",
      "hadoop-yarn-", "hadoop-hdfs-", "hadoop-shaded-protobuf", "jetty-server-9", "jetty-util-9", "jersey-",
      "zookeeper-", "curator-", "kerb-", "kerby-", "netty-all-", "bcprov-", "reload4j-", "slf4j-reload4j-", "jsch-",
      "dnsjava-", "commons-configuration2-", "commons-math3-", "commons-net-", "commons-beanutils-", "guava-27",
      "gson-", "re2j-", "nimbus-jose-jwt-", "metrics-core-3", "jettison-", "guice-", "avro-1.9");

  @Test
  void theJarHasHadoopCommonAndMapreduceCoreWithOnlyWhatConfigurationNeeds() throws IOException {
    List<String> libraries = libraries();
    assertThat(libraries).filteredOn(name -> name.startsWith("hadoop-"))
        .containsExactlyInAnyOrder("hadoop-common-3.4.1.jar", "hadoop-mapreduce-client-core-3.4.1.jar",
            "hadoop-shaded-guava-1.3.0.jar");
    assertThat(libraries).contains("commons-collections-3.2.2.jar", "woodstox-core-5.4.0.jar", "stax2-api-4.2.1.jar");
    assertThat(libraries).allSatisfy(name -> assertThat(EXCLUDED).noneMatch(name::startsWith));
  }

  private static List<String> libraries() throws IOException {
    Path jar = Path.of(System.getProperty("example.jar", "target/iceberg-scan-planning-examples-0.1.0-SNAPSHOT.jar"));
    assertThat(jar).exists();
    try (JarFile file = new JarFile(jar.toFile())) {
      return file.stream().map(ZipEntry::getName).filter(name -> name.startsWith("BOOT-INF/lib/"))
          .map(name -> name.substring("BOOT-INF/lib/".length())).filter(name -> !name.isEmpty()).toList();
    }
  }
}

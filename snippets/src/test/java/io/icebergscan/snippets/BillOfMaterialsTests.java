package io.icebergscan.snippets;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bill of materials as an application meets it: a project of its own that imports
 * {@code iceberg-scan-planning-dependencies} and declares the starter, the iceberg module, iceberg-parquet and
 * Hadoop without a version. Maven resolves its dependency graph in a reactor beside this build's published modules,
 * so that the {@code mvn verify} that runs this test, which installs nothing, serves them from their sources, and
 * everything else from the local repository this build filled.
 */
class BillOfMaterialsTests {

  /** The repository, seen from this module's directory, where Maven runs its tests. */
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  private static final List<String> PUBLISHED = List.of("iceberg-scan-planning-dependencies",
      "iceberg-scan-planning-core", "iceberg-scan-planning-autoconfigure", "iceberg-scan-planning-test",
      "iceberg-scan-planning-iceberg", "iceberg-scan-planning-data", "iceberg-scan-planning-iceberg-autoconfigure",
      "iceberg-scan-planning-spring-boot-starter");

  @Test
  void anApplicationThatImportsTheBomDeclaresTheStarterTheIcebergModuleAndParquetWithoutVersions() throws Exception {
    String version = pomValue(ROOT.resolve("pom.xml"), "version");
    Path work = Path.of("target/bom-application").toAbsolutePath();
    Path application = work.resolve("application");
    Files.createDirectories(application);
    Path tree = application.resolve("target/dependencies.txt");
    Files.deleteIfExists(tree);
    Files.writeString(application.resolve("pom.xml"), applicationPom(version));
    StringBuilder modules = new StringBuilder("<module>application</module>");
    for (String module : PUBLISHED) {
      modules.append("<module>").append(work.relativize(ROOT.resolve(module))).append("</module>");
    }
    Files.writeString(work.resolve("pom.xml"), """
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>example</groupId>
          <artifactId>reactor</artifactId>
          <version>1</version>
          <packaging>pom</packaging>
          <modules>%s</modules>
        </project>
        """.formatted(modules));

    String printed = maven(work, "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:tree");

    assertThat(tree).as(printed).exists();
    String dependencies = Files.readString(tree);
    assertThat(dependencies)
        .contains("+- io.icebergscan:iceberg-scan-planning-spring-boot-starter:jar:" + version + ":compile")
        .contains("+- io.icebergscan:iceberg-scan-planning-iceberg:jar:" + version + ":compile")
        .contains("+- org.apache.iceberg:iceberg-parquet:jar:" + pomValue(bom(), "properties/iceberg.version")
            + ":runtime")
        .contains("org.apache.parquet:parquet-hadoop:jar:" + pomValue(bom(), "properties/parquet.version"))
        .contains("org.apache.avro:avro:jar:" + pomValue(bom(), "properties/avro.version"));
    // Hadoop as docs/reading.md adds it: the two jars Parquet reads through, and of their dependencies only the four
    // that Hadoop's Configuration needs
    String hadoop = pomValue(bom(), "properties/hadoop.version");
    List<String> lines = dependencies.lines().toList();
    int common = indexOf(lines, "org.apache.hadoop:hadoop-common:");
    int mapreduce = indexOf(lines, "org.apache.hadoop:hadoop-mapreduce-client-core:");
    assertThat(lines.subList(common, mapreduce + 1)).as(dependencies)
        .map(line -> line.replaceAll("^[|+\\\\ -]+", ""))
        .containsExactly("org.apache.hadoop:hadoop-common:jar:" + hadoop + ":runtime",
            "org.apache.hadoop.thirdparty:hadoop-shaded-guava:jar:1.3.0:runtime",
            "commons-collections:commons-collections:jar:3.2.2:runtime",
            "org.codehaus.woodstox:stax2-api:jar:4.2.1:runtime",
            "com.fasterxml.woodstox:woodstox-core:jar:5.4.0:runtime",
            "org.apache.hadoop:hadoop-mapreduce-client-core:jar:" + hadoop + ":runtime");
    assertThat(lines.subList(mapreduce + 1, lines.size())).as("hadoop-mapreduce-client-core brings nothing")
        .allSatisfy(line -> assertThat(line).matches("^[+\\\\]- .*"));
  }

  /** The build's own modules are built and tested with the versions the bill of materials hands applications. */
  @Test
  void theBomsVersionsAreTheBuilds() throws Exception {
    Path parent = ROOT.resolve("pom.xml");
    assertThat(pomValue(bom(), "version")).isEqualTo(pomValue(parent, "version"));
    assertThat(pomValue(bom(), "properties/iceberg.version")).isEqualTo(pomValue(parent, "properties/iceberg.version"));
    assertThat(pomValue(bom(), "properties/hadoop.version")).isEqualTo(pomValue(parent, "properties/hadoop.version"));
    // no parent: what an application imports is this POM's own dependencyManagement, and nothing of the build's
    assertThat(Files.readString(bom())).doesNotContain("<parent>");
  }

  private static int indexOf(List<String> lines, String artifact) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(artifact)) {
        return i;
      }
    }
    throw new AssertionError(artifact + " is not among " + lines);
  }

  private static Path bom() {
    return ROOT.resolve("iceberg-scan-planning-dependencies/pom.xml");
  }

  private static String applicationPom(String version) {
    return """
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>example</groupId>
          <artifactId>application</artifactId>
          <version>1</version>
          <dependencyManagement>
            <dependencies>
              <dependency>
                <groupId>io.icebergscan</groupId>
                <artifactId>iceberg-scan-planning-dependencies</artifactId>
                <version>%s</version>
                <type>pom</type>
                <scope>import</scope>
              </dependency>
            </dependencies>
          </dependencyManagement>
          <dependencies>
            <dependency>
              <groupId>io.icebergscan</groupId>
              <artifactId>iceberg-scan-planning-spring-boot-starter</artifactId>
            </dependency>
            <dependency>
              <groupId>io.icebergscan</groupId>
              <artifactId>iceberg-scan-planning-iceberg</artifactId>
            </dependency>
            <dependency>
              <groupId>org.apache.iceberg</groupId>
              <artifactId>iceberg-parquet</artifactId>
              <scope>runtime</scope>
            </dependency>
            <dependency>
              <groupId>org.apache.hadoop</groupId>
              <artifactId>hadoop-common</artifactId>
              <scope>runtime</scope>
            </dependency>
            <dependency>
              <groupId>org.apache.hadoop</groupId>
              <artifactId>hadoop-mapreduce-client-core</artifactId>
              <scope>runtime</scope>
            </dependency>
          </dependencies>
          <build>
            <plugins>
              <plugin>
                <groupId>org.apache.maven.plugins</groupId>
                <artifactId>maven-dependency-plugin</artifactId>
                <version>3.8.1</version>
                <configuration>
                  <outputFile>${project.build.directory}/dependencies.txt</outputFile>
                </configuration>
              </plugin>
            </plugins>
          </build>
        </project>
        """.formatted(version);
  }

  /**
   * Runs the Maven that runs this build (surefire hands its home over) on {@code directory}, with this build's local
   * repository and JDK; returns what it printed, and fails unless it succeeded.
   */
  private static String maven(Path directory, String... goals) throws IOException, InterruptedException {
    String home = System.getProperty("maven.home");
    String mvn = home == null || home.isBlank() ? "mvn" : Path.of(home, "bin", "mvn").toString();
    List<String> command = new ArrayList<>(List.of(mvn, "-B", "-q", "-f", directory.resolve("pom.xml").toString()));
    String repository = System.getProperty("maven.repo.local");
    if (repository != null && !repository.isBlank()) {
      command.add("-Dmaven.repo.local=" + repository);
    }
    command.addAll(List.of(goals));
    ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true);
    builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
    Path log = directory.resolve("maven.log");
    builder.redirectOutput(log.toFile());
    Process maven = builder.start();
    if (!maven.waitFor(5, TimeUnit.MINUTES)) {
      maven.destroyForcibly();
      throw new AssertionError("mvn did not finish in 5 minutes: " + Files.readString(log, StandardCharsets.UTF_8));
    }
    String printed = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(maven.exitValue()).as(printed).isZero();
    return printed;
  }

  /** The text of the element at {@code path} (slash-separated, from the project element) of a POM. */
  private static String pomValue(Path pom, String path) throws Exception {
    Document document = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    Element element = document.getDocumentElement();
    for (String name : path.split("/")) {
      Element child = null;
      for (org.w3c.dom.Node node = element.getFirstChild(); node != null; node = node.getNextSibling()) {
        if (node instanceof Element candidate && candidate.getTagName().equals(name)) {
          child = candidate;
          break;
        }
      }
      assertThat(child).as(pom + " has " + path).isNotNull();
      element = child;
    }
    return element.getTextContent().trim();
  }
}

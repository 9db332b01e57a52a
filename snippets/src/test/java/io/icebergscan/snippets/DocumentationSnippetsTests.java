package io.icebergscan.snippets;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every Java code block of README.md and docs/ is a source file of this module, shown whole but for its package
 * line, so that it compiles against the published API (this module's build fails when the API drifts from a
 * snippet) and {@link SnippetsRunTests} or JUnit itself runs it. A block names its file in an HTML comment on the line
 * before it, which Markdown does not show: {@code <!-- snippet: snippets/src/main/java/…/Scans.java -->}.
 */
class DocumentationSnippetsTests {

  /** The repository, seen from this module's directory, where Maven runs its tests. */
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  private static final Pattern SNIPPET = Pattern.compile("^<!-- snippet: (\\S+) -->$");
  private static final Pattern PACKAGE = Pattern.compile("\\Apackage [\\w.]+;\\n\\n");

  /** This module's sources that are not documentation: the application they belong to and these tests. */
  private static final Set<String> NOT_SHOWN = Set.of("SnippetsApplication.java", "DocumentationSnippetsTests.java",
      "SnippetsRunTests.java", "DevTimeCatalogTests.java", "BillOfMaterialsTests.java",
      "OrderRepositoryRunTests.java");

  record Block(Path document, int line, String snippet, String code) {

    @Override
    public String toString() {
      return ROOT.relativize(this.document) + ":" + this.line;
    }
  }

  @Test
  void everyJavaBlockIsItsSnippetFileWholeButForThePackageLine() throws IOException {
    List<Block> blocks = blocks();
    assertThat(blocks).as("the Java blocks of README.md and docs/").hasSizeGreaterThanOrEqualTo(6);
    for (Block block : blocks) {
      assertThat(block.snippet()).as(block + " names its snippet file").isNotEmpty();
      Path file = ROOT.resolve(block.snippet());
      assertThat(file).as(block.toString()).isRegularFile();
      String source = Files.readString(file);
      Matcher packageLine = PACKAGE.matcher(source);
      assertThat(packageLine.find()).as(file + " starts with its package line and a blank line").isTrue();
      assertThat(block.code()).as(block + " shows " + block.snippet()).isEqualTo(source.substring(packageLine.end()));
    }
  }

  @Test
  void everyBlockShowsItsImports() throws IOException {
    assertThat(blocks()).allSatisfy(block -> assertThat(block.code()).as(block.toString()).startsWith("import "));
  }

  @Test
  void everySnippetFileIsShownInTheDocumentation() throws IOException {
    Set<String> shown = new TreeSet<>();
    blocks().forEach(block -> shown.add(block.snippet()));
    Set<String> sources = new TreeSet<>();
    try (Stream<Path> files = Files.walk(ROOT.resolve("snippets/src"))) {
      files.filter(file -> file.toString().endsWith(".java"))
          .filter(file -> !NOT_SHOWN.contains(file.getFileName().toString()))
          .forEach(file -> sources.add(ROOT.relativize(file).toString().replace('\\', '/')));
    }
    assertThat(shown).isEqualTo(sources);
  }

  /** The Java blocks of README.md and docs/*.md, each with the snippet named on the line before it, if any. */
  private static List<Block> blocks() throws IOException {
    List<Path> documents = new ArrayList<>();
    documents.add(ROOT.resolve("README.md"));
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      docs.filter(file -> file.toString().endsWith(".md")).sorted().forEach(documents::add);
    }
    List<Block> blocks = new ArrayList<>();
    for (Path document : documents) {
      List<String> lines = Files.readAllLines(document);
      for (int i = 0; i < lines.size(); i++) {
        if (!lines.get(i).equals("```java")) {
          continue;
        }
        Matcher named = i > 0 ? SNIPPET.matcher(lines.get(i - 1)) : SNIPPET.matcher("");
        StringBuilder code = new StringBuilder();
        int end = i + 1;
        while (!lines.get(end).equals("```")) {
          code.append(lines.get(end++)).append('\n');
        }
        blocks.add(new Block(document, i + 1, named.matches() ? named.group(1) : "", code.toString()));
        i = end;
      }
    }
    return blocks;
  }
}

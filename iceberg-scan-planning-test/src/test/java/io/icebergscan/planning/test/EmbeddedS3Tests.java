package io.icebergscan.planning.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.StreamSupport;

import io.icebergscan.planning.ClassPathWithout;
import io.icebergscan.planning.test.EmbeddedS3.S3Credentials;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.StorageCredential;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.S3Exception;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The embedded S3 store: it refuses what S3 refuses (an unsigned request, an unknown key, a wrong secret, an expired
 * or revoked session), and a catalog created over it keeps its whole warehouse in its bucket, tells clients where
 * the files are without telling them a secret, and vends credentials that Apache Iceberg's own client reads with.
 * One store for the class; each test has tables or objects of its own.
 */
class EmbeddedS3Tests {

  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()));

  private static final Instant START = Instant.parse("2026-06-01T08:00:00Z");
  private static EmbeddedS3 s3;

  @BeforeAll
  static void start() {
    s3 = EmbeddedS3.create().clock(Clock.fixed(START, ZoneOffset.UTC)).start();
  }

  @AfterEach
  void backToTheStart() {
    s3.clock(Clock.fixed(START, ZoneOffset.UTC));
  }

  @AfterAll
  static void stop() {
    s3.close();
  }

  @Test
  void aStoreStartsOnceOnALoopbackPortAndClosesOnce() {
    EmbeddedS3 store = EmbeddedS3.create();
    assertThat(store.isRunning()).isFalse();
    assertThatThrownBy(store::endpoint).isInstanceOf(IllegalStateException.class).hasMessage("the store is not started");
    try (store) {
      store.start();
      assertThat(store.isRunning()).isTrue();
      assertThat(store.endpoint()).matches("http://127\\.0\\.0\\.1:\\d+").isNotEqualTo(s3.endpoint());
      assertThat(store.location()).isEqualTo("s3://" + EmbeddedS3.BUCKET);
      assertThatThrownBy(store::start).isInstanceOf(IllegalStateException.class)
          .hasMessage("the store is already started");
    }
    assertThat(store.isRunning()).isFalse();
    store.close();
    assertThatThrownBy(store::start).isInstanceOf(IllegalStateException.class).hasMessage("the store is closed");
  }

  @Test
  void aVendedCredentialIsTheBucketsWithEverySettingAReaderNeeds() throws IOException {
    String object = s3.location() + "/vended/object";
    try (FileIO root = io(s3.rootCredentials())) {
      write(root, object, "content");
    }
    StorageCredential vended = s3.vend(Duration.ofMinutes(5));
    assertThat(vended.prefix()).isEqualTo("s3://" + EmbeddedS3.BUCKET + "/");
    assertThat(vended.config()).containsOnlyKeys("s3.access-key-id", "s3.secret-access-key", "s3.session-token",
        "s3.session-token-expires-at-ms").containsEntry("s3.session-token-expires-at-ms",
            Long.toString(START.plus(Duration.ofMinutes(5)).toEpochMilli()));
    Map<String, String> properties = new LinkedHashMap<>(s3.clientProperties());
    properties.putAll(vended.config());
    try (FileIO io = CatalogUtil.loadFileIO(EmbeddedS3.S3_FILE_IO, properties, null)) {
      assertThat(read(io, object)).isEqualTo("content");
    }
  }

  @Test
  void anUnsignedRequestAnUnknownKeyAndAWrongSecretAreRefusedAsS3RefusesThem() throws Exception {
    String object = s3.location() + "/refusals/object";
    try (FileIO root = io(s3.rootCredentials())) {
      write(root, object, "content");
      assertThat(read(root, object)).isEqualTo("content");
    }
    HttpResponse<String> unsigned = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create(s3.endpoint() + "/" + s3.bucket() + "/refusals/object")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(unsigned.statusCode()).isEqualTo(403);
    assertThat(unsigned.body()).contains("<Code>AccessDenied</Code>");

    S3Credentials unknown = new S3Credentials("AKIAUNKNOWN000000000", "secret", null, null);
    assertRefused(unknown, object, "InvalidAccessKeyId");
    assertRefused(s3.rootCredentials().withSecretAccessKey("not-the-secret"), object, "SignatureDoesNotMatch");
  }

  @Test
  void temporaryCredentialsHoldUntilTheyExpireOnTheStoresClockOrAreRevoked() throws Exception {
    String object = s3.location() + "/temporary/object";
    try (FileIO root = io(s3.rootCredentials())) {
      write(root, object, "content");
    }
    S3Credentials expiring = s3.issueCredentials(Duration.ofMinutes(15));
    assertThat(expiring.sessionToken()).isNotBlank();
    assertThat(expiring.settings()).containsEntry("s3.session-token-expires-at-ms",
        Long.toString(START.plus(Duration.ofMinutes(15)).toEpochMilli()));
    S3Credentials revoked = s3.issueCredentials(Duration.ofHours(1));
    try (FileIO io = io(expiring)) {
      assertThat(read(io, object)).isEqualTo("content");
    }
    try (FileIO io = io(revoked)) {
      assertThat(read(io, object)).isEqualTo("content");
    }
    long accepted = s3.requests(expiring);
    assertThat(accepted).isPositive();

    // the store's clock can be changed at any time: fifteen minutes later
    s3.clock(Clock.fixed(START.plus(Duration.ofMinutes(15)), ZoneOffset.UTC));
    s3.revoke(revoked);
    assertRefused(expiring, object, "InvalidAccessKeyId");
    assertRefused(revoked, object, "InvalidAccessKeyId");
    assertThat(s3.requests(expiring)).as("refused requests count too").isGreaterThan(accepted);
    assertThatThrownBy(() -> s3.revoke(s3.rootCredentials())).isInstanceOf(IllegalArgumentException.class);
    assertThat(expiring.toString()).doesNotContain(expiring.secretAccessKey()).doesNotContain(
        expiring.sessionToken());
  }

  @Test
  void theCatalogKeepsMetadataDataAndDeleteFilesInTheBucketAndReadsThemBack() throws IOException {
    try (EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalog.create(s3)) {
      EmbeddedTable v2 = catalog.createTable(TableIdentifier.of("db", "v2"), SCHEMA);
      List<DataFile> avro = v2.writeRows(FileFormat.AVRO, rows(v2, 0, 4));
      List<DataFile> parquet = v2.writeRows(FileFormat.PARQUET, rows(v2, 4, 4));
      v2.append(avro.get(0), parquet.get(0));
      List<DeleteFile> deletes = List.of(v2.writePositionDeletes(FileFormat.AVRO, avro.get(0), 0),
          v2.writeEqualityDeletes(FileFormat.PARQUET, List.of(v2.newRecord(5L, null)), 1));
      v2.addDeletes(deletes.toArray(DeleteFile[]::new));
      EmbeddedTable v3 = catalog.createTable(TableIdentifier.of("db", "v3"), SCHEMA,
          PartitionSpec.unpartitioned(), 3);
      DataFile v3File = v3.writeRows(FileFormat.AVRO, rows(v3, 0, 3)).get(0);
      v3.append(v3File);
      v3.addDeletes(v3.writeDeletionVector(v3File, 1));

      Table table = v2.table();
      assertThat(table.location()).startsWith(s3.location() + "/");
      assertThat(ids(table)).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 6L, 7L);
      assertThat(ids(v3.table())).containsExactlyInAnyOrder(0L, 2L);

      List<String> stored = objectsUnder(table.location());
      assertThat(stored).anyMatch(path -> path.contains("/metadata/") && path.endsWith(".metadata.json"))
          .anyMatch(path -> path.contains("/metadata/snap-") && path.endsWith(".avro"))
          .anyMatch(path -> path.contains("/data/") && path.endsWith(".avro"))
          .anyMatch(path -> path.contains("/data/") && path.endsWith(".parquet"))
          .contains(table.currentSnapshot().manifestListLocation())
          .containsAll(deletes.stream().map(DeleteFile::location).toList());
      assertThat(objectsUnder(v3.table().location())).anyMatch(path -> path.endsWith(".puffin"));
      assertThat(new InMemoryFileIO().fileExists(table.currentSnapshot().manifestListLocation()))
          .as("nothing in the in-memory FileIO").isFalse();
    }
  }

  @Test
  void configAdvertisesWhereTheFilesAreAndNoSecret() {
    try (EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalog.create(s3).start()) {
      RawHttp.Response config = new RawHttp(catalog).get("/v1/config");
      assertThat(config.status()).isEqualTo(200);
      Map<String, String> defaults = new LinkedHashMap<>();
      config.json().get("defaults").properties().forEach(field -> defaults.put(field.getKey(),
          field.getValue().asText()));
      assertThat(defaults).containsAllEntriesOf(s3.clientProperties())
          .containsEntry("io-impl", "org.apache.iceberg.aws.s3.S3FileIO")
          .containsEntry("s3.endpoint", s3.endpoint()).containsEntry("s3.path-style-access", "true")
          .containsEntry("client.region", EmbeddedS3.REGION)
          .doesNotContainKeys("s3.access-key-id", "s3.secret-access-key", "s3.session-token");
      assertThat(config.body()).doesNotContain(s3.rootCredentials().secretAccessKey())
          .doesNotContain(s3.rootCredentials().accessKeyId());
    }
  }

  @Test
  void icebergsOwnClientReadsWithTheCredentialsTheCatalogVends() throws IOException {
    try (EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalog.create(s3).start()) {
      List<S3Credentials> vended = new CopyOnWriteArrayList<>();
      catalog.vendedCredentials(request -> {
        S3Credentials credentials = s3.issueCredentials(Duration.ofHours(1));
        vended.add(credentials);
        return List.of(s3.storageCredential(credentials));
      });
      EmbeddedTable table = catalog.createTable(TableIdentifier.of("db", "vended"), SCHEMA);
      table.appendRows(FileFormat.PARQUET, rows(table, 0, 5));

      RESTCatalog client = new RESTCatalog();
      client.initialize("client", Map.of("uri", catalog.uri(),
          "header.X-Iceberg-Access-Delegation", "vended-credentials"));
      try (client) {
        Table loaded = client.loadTable(table.identifier());
        assertThat(ids(loaded)).containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L);
      }
      assertThat(vended).isNotEmpty();
      assertThat(vended.stream().mapToLong(s3::requests).sum()).as("requests signed with vended credentials")
          .isPositive();
    }
  }

  @Test
  void withoutItsOptionalJarsTheInMemoryCatalogStillWorksAndEmbeddedS3SaysWhatIsMissing() throws Exception {
    ClassPathWithout.Run run = ClassPathWithout.run(path -> path.contains("/org/gaul/")
        || path.contains("/software/amazon/awssdk/") || Path.of(path).getFileName().toString().startsWith("iceberg-aws-"),
        WithoutS3.class);
    assertThat(run.leftOut()).as("this module's tests have the optional jars")
        .anyMatch(name -> name.startsWith("s3proxy-")).anyMatch(name -> name.startsWith("iceberg-aws-"))
        .anyMatch(name -> name.startsWith("s3-"));

    assertThat(run.outcome()).isEqualTo(List.of("no s3proxy", "read 2", "EmbeddedS3 needs org.gaul:s3proxy, "
        + "org.apache.iceberg:iceberg-aws and software.amazon.awssdk:s3, apache5-client, kms and sts on the "
        + "classpath (optional dependencies of iceberg-scan-planning-test: declare them in your build); missing: "
        + "org.gaul.s3proxy.S3Proxy, org.apache.iceberg.aws.s3.S3FileIO, "
        + "software.amazon.awssdk.services.s3.S3Client, software.amazon.awssdk.http.apache5.Apache5HttpClient, "
        + "software.amazon.awssdk.services.kms.KmsClient, software.amazon.awssdk.services.sts.StsClient"));
  }

  /**
   * Runs in a class loader without S3Proxy, iceberg-aws and the AWS SDK: the in-memory catalog writes and reads, then
   * {@link EmbeddedS3#create()} is asked for. Only JDK types cross the loader boundary.
   */
  public static final class WithoutS3 implements Callable<List<String>> {

    @Override
    public List<String> call() throws IOException {
      List<String> outcome = new ArrayList<>();
      try {
        Class.forName("org.gaul.s3proxy.S3Proxy");
        outcome.add("s3proxy is there");
      }
      catch (ClassNotFoundException expected) {
        outcome.add("no s3proxy");
      }
      try (EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalog.create().start()) {
        EmbeddedTable table = catalog.createTable(TableIdentifier.of("db", "t"), SCHEMA);
        table.appendRows(FileFormat.AVRO, List.of(table.newRecord(1L, "a"), table.newRecord(2L, "b")));
        outcome.add("read " + ids(table.table()).size());
      }
      try {
        EmbeddedS3.create();
        outcome.add("created");
      }
      catch (IllegalStateException refused) {
        outcome.add(refused.getMessage());
      }
      return outcome;
    }
  }

  private static void assertRefused(S3Credentials credentials, String object, String errorCode) {
    try (FileIO io = io(credentials)) {
      assertThatThrownBy(() -> read(io, object))
          .isInstanceOf(S3Exception.class)
          .satisfies(failure -> {
            S3Exception refusal = (S3Exception) failure;
            assertThat(refusal.statusCode()).isEqualTo(403);
            assertThat(refusal.awsErrorDetails().errorCode()).isEqualTo(errorCode);
          });
    }
  }

  private static FileIO io(S3Credentials credentials) {
    return CatalogUtil.loadFileIO(EmbeddedS3.S3_FILE_IO, s3.fileIoProperties(credentials), null);
  }

  private static void write(FileIO io, String location, String content) throws IOException {
    try (OutputStream out = io.newOutputFile(location).createOrOverwrite()) {
      out.write(content.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static String read(FileIO io, String location) throws IOException {
    try (InputStream in = io.newInputFile(location).newStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** Every object under a location, as the root credentials list them. */
  private static List<String> objectsUnder(String location) {
    try (FileIO io = io(s3.rootCredentials())) {
      return StreamSupport.stream(((SupportsPrefixOperations) io).listPrefix(location).spliterator(), false)
          .map(FileInfo::location).toList();
    }
  }

  private static List<Long> ids(Table table) {
    List<Long> ids = new ArrayList<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      rows.forEach(row -> ids.add((Long) row.getField("id")));
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
    return ids;
  }

  private static List<Record> rows(EmbeddedTable table, long from, int count) {
    Record template = table.newRecord();
    List<Record> rows = new ArrayList<>(count);
    for (long id = from; id < from + count; id++) {
      rows.add(template.copy(Map.of("id", id, "name", "name-" + id)));
    }
    return rows;
  }
}

package io.icebergscan.planning.test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

/**
 * What Apache Iceberg's server itself planned: every scan it runs ends with a {@code ScanReport} that
 * its catalog's default metrics reporter ({@code LoggingMetricsReporter}) logs at INFO. Capturing those
 * lines shows which snapshot, filter and projection (the request's {@code select}) the server really
 * planned with, which the plan response does not.
 *
 * <p>While open, the reporter's logger is set to INFO, detached from the console and recorded; close
 * restores it. Reports are written on the server's request threads before the response is sent, so a
 * plan that has returned has its report here.
 */
final class ServerScanReports implements AutoCloseable {

  /** One scan the server planned. */
  record Report(String table, long snapshotId, String filter, List<String> projectedFieldNames) {
  }

  private static final String REPORTER = "org.apache.iceberg.metrics.LoggingMetricsReporter";

  private static final Pattern SCAN_REPORT = Pattern.compile("ScanReport\\{tableName=(.*?), snapshotId=(-?\\d+), "
      + "filter=(.*?), schemaId=-?\\d+, projectedFieldIds=\\[[^\\]]*\\], projectedFieldNames=\\[([^\\]]*)\\]");

  private final Logger logger;
  private final Level level;
  private final boolean additive;
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  private ServerScanReports() {
    this.logger = (Logger) LoggerFactory.getLogger(REPORTER);
    this.level = this.logger.getLevel();
    this.additive = this.logger.isAdditive();
    this.appender.start();
    this.logger.addAppender(this.appender);
    this.logger.setAdditive(false);
    this.logger.setLevel(Level.INFO);
  }

  static ServerScanReports capture() {
    return new ServerScanReports();
  }

  /** The scan reports of the given table ({@code db.t}), oldest first. */
  List<Report> scansOf(org.apache.iceberg.catalog.TableIdentifier table) {
    List<Report> reports = new ArrayList<>();
    List<ILoggingEvent> events;
    // AppenderBase.doAppend holds the appender's lock: reading under it sees every complete append.
    synchronized (this.appender) {
      events = List.copyOf(this.appender.list);
    }
    for (ILoggingEvent event : events) {
      Matcher report = SCAN_REPORT.matcher(event.getFormattedMessage());
      // The catalog's name prefixes the table name: "embedded.db.t".
      if (report.find() && report.group(1).endsWith("." + table)) {
        String names = report.group(4);
        reports.add(new Report(report.group(1), Long.parseLong(report.group(2)), report.group(3),
            names.isEmpty() ? List.of() : Arrays.asList(names.split(", "))));
      }
    }
    return reports;
  }

  void clear() {
    synchronized (this.appender) {
      this.appender.list.clear();
    }
  }

  @Override
  public void close() {
    this.logger.detachAppender(this.appender);
    this.appender.stop();
    this.logger.setLevel(this.level);
    this.logger.setAdditive(this.additive);
  }
}

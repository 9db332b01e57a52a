package io.icebergscan.planning.benchmarks;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;

/** The PNG charts of {@link Report}, drawn with XChart from the same figures as its tables. */
final class Charts {

  private static final int WIDTH = 820;
  private static final int HEIGHT = 460;

  static {
    // no display on a build machine
    System.setProperty("java.awt.headless", "true");
  }

  private Charts() {
  }

  /** One line per series of (x, y) points; x on a log-2 axis (concurrency limits). */
  static void lines(Path file, String title, String xTitle, String yTitle, Map<String, List<double[]>> series)
      throws IOException {
    XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle)
        .yAxisTitle(yTitle).build();
    chart.getStyler().setXAxisLogarithmic(true);
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW).setChartBackgroundColor(Color.WHITE);
    series.forEach((name, points) -> chart.addSeries(name, points.stream().mapToDouble(p -> p[0]).toArray(),
        points.stream().mapToDouble(p -> p[1]).toArray()));
    save(file, chart);
  }

  /** Grouped bars: one bar per category and series. */
  static void bars(Path file, String title, String yTitle, List<String> categories, Map<String, List<Double>> series)
      throws IOException {
    CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title).yAxisTitle(yTitle)
        .build();
    chart.getStyler().setLabelsVisible(true);
    chart.getStyler().setDecimalPattern("#,##0.##");
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW).setChartBackgroundColor(Color.WHITE);
    series.forEach((name, values) -> chart.addSeries(name, categories, values));
    save(file, chart);
  }

  private static void save(Path file, Chart<?, ?> chart) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
  }
}

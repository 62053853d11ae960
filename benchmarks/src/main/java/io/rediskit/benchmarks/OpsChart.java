package io.rediskit.benchmarks;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler.LegendLayout;
import org.knowm.xchart.style.Styler.LegendPosition;

/**
 * Draws throughput as grouped bars, one group per scenario and one bar per library, into an 800 by 500 PNG.
 * <p>
 * Drawing needs no display: {@link BenchmarkMain} runs AWT headless.
 */
public final class OpsChart {

	private static final int WIDTH = 800;

	private static final int HEIGHT = 500;

	private OpsChart() {
	}

	/**
	 * Draws the chart and writes it, creating the directory if needed.
	 * @param file the PNG file to write
	 * @param title the chart title
	 * @param scenarios the scenario names, one group of bars each
	 * @param opsPerSecondByLibrary for each library, in legend order, its ops/s per scenario in the order of
	 * {@code scenarios}
	 * @throws IOException if the file cannot be written
	 */
	public static void write(Path file, String title, List<String> scenarios,
			Map<String, List<? extends Number>> opsPerSecondByLibrary) throws IOException {
		write(file, title, "ops/s", scenarios, opsPerSecondByLibrary);
	}

	/**
	 * Draws grouped bars of any quantity and writes them, creating the directory if needed.
	 * @param file the PNG file to write
	 * @param title the chart title
	 * @param yAxisTitle what the bars measure, such as {@code bytes per key}
	 * @param scenarios the scenario names, one group of bars each
	 * @param valuesByLibrary for each library, in legend order, its value per scenario in the order of
	 * {@code scenarios}
	 * @throws IOException if the file cannot be written
	 */
	public static void write(Path file, String title, String yAxisTitle, List<String> scenarios,
			Map<String, ? extends List<? extends Number>> valuesByLibrary) throws IOException {
		CategoryChart chart = new CategoryChartBuilder().width(WIDTH)
			.height(HEIGHT)
			.title(title)
			.xAxisTitle("Scenario")
			.yAxisTitle(yAxisTitle)
			.build();
		// Below the plot: inside it, the legend would cover the tallest bar.
		chart.getStyler().setLegendPosition(LegendPosition.OutsideS);
		chart.getStyler().setLegendLayout(LegendLayout.Horizontal);
		chart.getStyler().setLabelsVisible(true);
		chart.getStyler().setYAxisMin(0.0);
		chart.getStyler().setYAxisDecimalPattern("#,###");
		valuesByLibrary.forEach((library, values) -> chart.addSeries(library, scenarios, values));
		Path directory = file.toAbsolutePath().getParent();
		if (directory != null) {
			Files.createDirectories(directory);
		}
		try (OutputStream out = Files.newOutputStream(file)) {
			BitmapEncoder.saveBitmap(chart, out, BitmapFormat.PNG);
		}
	}

}

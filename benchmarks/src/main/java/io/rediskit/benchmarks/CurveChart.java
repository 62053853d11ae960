package io.rediskit.benchmarks;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries.XYSeriesRenderStyle;
import org.knowm.xchart.style.Styler.LegendLayout;
import org.knowm.xchart.style.Styler.LegendPosition;

/**
 * Draws how a quantity grows with a size, one line per library, into an 800 by 500 PNG: the cost curves. The size
 * axis is logarithmic (the sizes go up by powers of ten), the value axis linear from zero, so that a line that
 * stays flat costs the same at every size and two lines that cross show where one way overtakes the other.
 * <p>
 * Drawing needs no display: {@link BenchmarkMain} runs AWT headless.
 */
public final class CurveChart {

	private static final int WIDTH = 800;

	private static final int HEIGHT = 500;

	private CurveChart() {
	}

	/**
	 * Draws the chart and writes it, creating the directory if needed.
	 * @param file the PNG file to write
	 * @param title the chart title
	 * @param xAxisTitle what the sizes count, such as {@code members}
	 * @param yAxisTitle what the values measure, such as {@code searches/s}
	 * @param sizes the sizes, ascending, the same for every line
	 * @param valuesByLibrary for each library, in legend order, its value at each size in the order of
	 * {@code sizes}; a value that is not finite (not measured) leaves a gap
	 * @throws IOException if the file cannot be written
	 */
	public static void write(Path file, String title, String xAxisTitle, String yAxisTitle, List<? extends Number> sizes,
			Map<String, ? extends List<? extends Number>> valuesByLibrary) throws IOException {
		XYChart chart = new XYChartBuilder().width(WIDTH)
			.height(HEIGHT)
			.title(title)
			.xAxisTitle(xAxisTitle + " (log scale)")
			.yAxisTitle(yAxisTitle)
			.build();
		chart.getStyler().setDefaultSeriesRenderStyle(XYSeriesRenderStyle.Line);
		chart.getStyler().setLegendPosition(LegendPosition.OutsideS);
		chart.getStyler().setLegendLayout(LegendLayout.Horizontal);
		chart.getStyler().setXAxisLogarithmic(true);
		chart.getStyler().setYAxisMin(0.0);
		chart.getStyler().setYAxisDecimalPattern("#,###.##");
		chart.getStyler().setXAxisDecimalPattern("#,###");
		valuesByLibrary.forEach((library, values) -> {
			List<Double> x = new ArrayList<>();
			List<Double> y = new ArrayList<>();
			for (int i = 0; i < sizes.size(); i++) {
				double value = values.get(i).doubleValue();
				if (Double.isFinite(value)) {
					x.add(sizes.get(i).doubleValue());
					y.add(value);
				}
			}
			if (!x.isEmpty()) {
				chart.addSeries(library, x, y);
			}
		});
		Path directory = file.toAbsolutePath().getParent();
		if (directory != null) {
			Files.createDirectories(directory);
		}
		try (OutputStream out = Files.newOutputStream(file)) {
			BitmapEncoder.saveBitmap(chart, out, BitmapFormat.PNG);
		}
	}

}

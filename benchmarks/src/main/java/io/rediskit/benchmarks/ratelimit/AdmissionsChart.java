package io.rediskit.benchmarks.ratelimit;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.imageio.ImageIO;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.XYSeries.XYSeriesRenderStyle;
import org.knowm.xchart.style.Styler.YAxisPosition;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws admissions over time as small multiples, one panel per limiter, two panels to a row, into one PNG:
 * in each panel the permits admitted per time bucket (blue, left axis, the same scale in every panel) over
 * the calls made per bucket (grey, right axis).
 * <p>
 * Drawing needs no display: {@link io.rediskit.benchmarks.BenchmarkMain} runs AWT headless.
 */
final class AdmissionsChart {

	private static final int PANEL_WIDTH = 600;

	private static final int PANEL_HEIGHT = 280;

	private static final int COLUMNS = 2;

	private static final int TITLE_HEIGHT = 64;

	private static final Color OFFERED = new Color(190, 190, 190);

	private static final Color ADMITTED = new Color(31, 119, 180);

	private AdmissionsChart() {
	}

	/**
	 * Draws the panels and writes the PNG, creating the directory if needed.
	 * @param file the PNG file to write
	 * @param title the title above all panels
	 * @param bucketMillis the width of one time bucket
	 * @param panels the limiters, in reading order
	 * @throws IOException if the file cannot be written
	 */
	static void write(Path file, String title, long bucketMillis, List<Panel> panels) throws IOException {
		double admittedMax = 1;
		for (Panel panel : panels) {
			for (long admitted : panel.admitted()) {
				admittedMax = Math.max(admittedMax, admitted);
			}
		}
		int rows = (panels.size() + COLUMNS - 1) / COLUMNS;
		BufferedImage image = new BufferedImage(COLUMNS * PANEL_WIDTH, TITLE_HEIGHT + rows * PANEL_HEIGHT,
				BufferedImage.TYPE_INT_RGB);
		Graphics2D graphics = image.createGraphics();
		try {
			graphics.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
			graphics.setColor(Color.WHITE);
			graphics.fillRect(0, 0, image.getWidth(), image.getHeight());
			graphics.setColor(Color.BLACK);
			graphics.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
			drawCentered(graphics, title, image.getWidth(), 26);
			// One key for all panels, in place of a legend in each that would cover the last burst.
			graphics.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
			drawCentered(graphics, "blue: permits admitted per " + bucketMillis
					+ " ms (left axis, same scale in every panel); grey: calls made per " + bucketMillis
					+ " ms (right axis)", image.getWidth(), 50);
			for (int i = 0; i < panels.size(); i++) {
				BufferedImage panel = BitmapEncoder.getBufferedImage(panel(panels.get(i), bucketMillis,
						Math.ceil(admittedMax * 1.1)));
				graphics.drawImage(panel, (i % COLUMNS) * PANEL_WIDTH, TITLE_HEIGHT + (i / COLUMNS) * PANEL_HEIGHT, null);
			}
		}
		finally {
			graphics.dispose();
		}
		Path directory = file.toAbsolutePath().getParent();
		if (directory != null) {
			Files.createDirectories(directory);
		}
		ImageIO.write(image, "png", file.toFile());
	}

	private static void drawCentered(Graphics2D graphics, String text, int width, int baseline) {
		graphics.drawString(text, (width - graphics.getFontMetrics().stringWidth(text)) / 2, baseline);
	}

	private static XYChart panel(Panel panel, long bucketMillis, double admittedMax) {
		XYChart chart = new XYChartBuilder().width(PANEL_WIDTH)
			.height(PANEL_HEIGHT)
			.title(panel.name())
			.xAxisTitle("seconds since the load started")
			.yAxisTitle("admitted / " + bucketMillis + " ms")
			.build();
		chart.setYAxisGroupTitle(1, "calls / " + bucketMillis + " ms");
		chart.getStyler().setLegendVisible(false);
		chart.getStyler().setYAxisGroupPosition(1, YAxisPosition.Right);
		chart.getStyler().setYAxisMin(0, 0.0);
		chart.getStyler().setYAxisMax(0, admittedMax);
		chart.getStyler().setYAxisMin(1, 0.0);
		chart.getStyler().setYAxisDecimalPattern("#,###");
		// A label per whole second: left to itself, XChart labels every n-th bucket, at odd fractions of a second.
		chart.setCustomXAxisTickLabelsFormatter(
				(value) -> (value % 1000 == 0) ? Long.toString(Math.round(value / 1000)) : "");
		List<Long> millis = new ArrayList<>();
		List<Long> offered = new ArrayList<>();
		List<Long> admitted = new ArrayList<>();
		for (int i = 0; i < panel.admitted().length; i++) {
			millis.add(i * bucketMillis);
			offered.add(panel.offered()[i]);
			admitted.add(panel.admitted()[i]);
		}
		// Offered first, so the admissions are drawn over it.
		XYSeries offeredSeries = chart.addSeries("offered", millis, offered);
		offeredSeries.setXYSeriesRenderStyle(XYSeriesRenderStyle.StepArea);
		offeredSeries.setYAxisGroup(1);
		offeredSeries.setLineColor(OFFERED);
		offeredSeries.setFillColor(OFFERED);
		offeredSeries.setMarker(SeriesMarkers.NONE);
		XYSeries admittedSeries = chart.addSeries("admitted", millis, admitted);
		admittedSeries.setXYSeriesRenderStyle(XYSeriesRenderStyle.Step);
		admittedSeries.setLineColor(ADMITTED);
		admittedSeries.setMarker(SeriesMarkers.NONE);
		return chart;
	}

	/**
	 * One limiter's panel.
	 *
	 * @param name the panel title
	 * @param admitted permits admitted per bucket
	 * @param offered calls made per bucket, admitted or not
	 */
	record Panel(String name, long[] admitted, long[] offered) {
	}

}

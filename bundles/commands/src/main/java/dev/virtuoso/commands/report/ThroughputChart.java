package dev.virtuoso.commands.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.Polygon;
import java.awt.RenderingHints;
import java.awt.Stroke;
import java.awt.geom.Path2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import javax.imageio.ImageIO;

import dev.virtuoso.commands.cli.Units;
import dev.virtuoso.commands.demo.Sample;

/**
 * Draws a run as a PNG with java.awt (headless): on top, throughput over time with one stacked
 * band per path, the goodput as a line, phase boundaries and events (e.g. a policy swap) as
 * vertical markers and capacities as dashed horizontal lines; below, one bar per phase (goodput
 * against the capacity of its paths). Stateless.
 */
public final class ThroughputChart {

    /**
     * A vertical marker.
     *
     * @param seconds where
     * @param label its text
     * @param event true for an event (drawn red), false for a phase boundary (grey)
     */
    public record Marker(double seconds, String label, boolean event) {
    }

    /**
     * A horizontal reference line.
     *
     * @param bitsPerSecond where
     * @param label its text
     */
    public record Level(double bitsPerSecond, String label) {
    }

    private static final int W = 1280;
    private static final int H = 860;
    private static final int LEFT = 90;
    private static final int RIGHT = W - 220;
    private static final int TOP = 70;
    private static final int BOTTOM = 470;
    private static final int BARS_TOP = 540;
    private static final Color[] PALETTE = {new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c),
        new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf), new Color(0xbcbd22),
        new Color(0x7f7f7f), new Color(0xaec7e8), new Color(0xffbb78), new Color(0x98df8a), new Color(0xc5b0d5),
        new Color(0xc49c94), new Color(0xf7b6d2), new Color(0x9edae5)};

    private ThroughputChart() {
    }

    /**
     * Renders and writes the chart.
     *
     * @param file the PNG to write
     * @param title title line
     * @param pathLabels legend label of each path column
     * @param samples the time series
     * @param markers vertical markers
     * @param levels horizontal reference lines
     * @param bars per-phase results
     * @throws IOException if the file cannot be written
     */
    public static void write(Path file, String title, List<String> pathLabels, List<Sample> samples,
            List<Marker> markers, List<Level> levels, List<PhaseResult> bars) throws IOException {
        BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, W, H);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 20));
            g.drawString(title, LEFT, 36);
            timeSeries(g, pathLabels, samples, markers, levels);
            bars(g, bars);
        } finally {
            g.dispose();
        }
        if (!ImageIO.write(img, "png", file.toFile())) {
            throw new IOException("no PNG writer in this JVM");
        }
    }

    private static void timeSeries(Graphics2D g, List<String> pathLabels, List<Sample> samples, List<Marker> markers,
            List<Level> levels) {
        double tMax = samples.isEmpty() ? 1 : samples.get(samples.size() - 1).seconds();
        double yMax = 1;
        for (Sample s : samples) {
            double sum = 0;
            for (double v : s.pathBitsPerSecond()) {
                sum += v;
            }
            yMax = Math.max(yMax, Math.max(sum, s.totalBitsPerSecond()));
        }
        for (Level l : levels) {
            yMax = Math.max(yMax, l.bitsPerSecond());
        }
        yMax = niceCeiling(yMax * 1.08);
        Axis x = new Axis(0, tMax, LEFT, RIGHT);
        Axis y = new Axis(0, yMax, BOTTOM, TOP);
        grid(g, x, y, "time (s)", "throughput (Mbit/s)");

        int columns = pathLabels.size();
        for (List<Sample> run : runs(samples)) {
            bands(g, x, y, run, columns);
        }

        Stroke dashed = new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 5f}, 0f);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        for (Level l : levels) {
            g.setColor(new Color(0x555555));
            g.setStroke(dashed);
            g.drawLine(LEFT, y.px(l.bitsPerSecond()), RIGHT, y.px(l.bitsPerSecond()));
            g.drawString(l.label(), RIGHT + 6, y.px(l.bitsPerSecond()) + 4);
        }
        int labelRow = 0;
        for (Marker m : markers) {
            g.setColor(m.event() ? new Color(0xd62728) : new Color(0x888888));
            g.setStroke(m.event() ? new BasicStroke(2f) : dashed);
            int px = x.px(m.seconds());
            g.drawLine(px, TOP, px, BOTTOM);
            g.drawString(m.label(), px + 4, TOP + 14 + 14 * (labelRow++ % 3));
        }
        g.setStroke(new BasicStroke(1f));
        int ly = TOP + 8;
        for (int p = 0; p < columns; p++) {
            g.setColor(PALETTE[p % PALETTE.length]);
            g.fillRect(RIGHT + 10, ly + 40, 14, 14);
            g.setColor(Color.BLACK);
            g.drawString(pathLabels.get(p), RIGHT + 30, ly + 52);
            ly += 20;
        }
        g.setStroke(new BasicStroke(2f));
        g.drawLine(RIGHT + 10, ly + 47, RIGHT + 24, ly + 47);
        g.drawString("goodput (verified)", RIGHT + 30, ly + 52);
    }

    /** Splits the samples where the phase changes: nothing is drawn across the gap between phases. */
    static List<List<Sample>> runs(List<Sample> samples) {
        List<List<Sample>> runs = new java.util.ArrayList<>();
        List<Sample> current = null;
        for (Sample s : samples) {
            if (current == null || !current.get(current.size() - 1).phase().equals(s.phase())) {
                current = new java.util.ArrayList<>();
                runs.add(current);
            }
            current.add(s);
        }
        return runs;
    }

    private static void bands(Graphics2D g, Axis x, Axis y, List<Sample> run, int columns) {
        double[] below = new double[run.size()];
        for (int p = 0; p < columns; p++) {
            Polygon band = new Polygon();
            double[] above = new double[run.size()];
            for (int i = 0; i < run.size(); i++) {
                double[] v = run.get(i).pathBitsPerSecond();
                above[i] = below[i] + (p < v.length ? v[p] : 0);
                band.addPoint(x.px(run.get(i).seconds()), y.px(above[i]));
            }
            for (int i = run.size() - 1; i >= 0; i--) {
                band.addPoint(x.px(run.get(i).seconds()), y.px(below[i]));
            }
            Color c = PALETTE[p % PALETTE.length];
            g.setColor(new Color(c.getRed(), c.getGreen(), c.getBlue(), 170));
            g.fillPolygon(band);
            below = above;
        }
        Path2D total = new Path2D.Double();
        for (int i = 0; i < run.size(); i++) {
            Sample s = run.get(i);
            if (i == 0) {
                total.moveTo(x.px(s.seconds()), y.px(s.totalBitsPerSecond()));
            } else {
                total.lineTo(x.px(s.seconds()), y.px(s.totalBitsPerSecond()));
            }
        }
        g.setColor(Color.BLACK);
        g.setStroke(new BasicStroke(2f));
        g.draw(total);
    }

    private static void bars(Graphics2D g, List<PhaseResult> bars) {
        if (bars.isEmpty()) {
            return;
        }
        double max = 1;
        for (PhaseResult r : bars) {
            max = Math.max(max, Math.max(r.goodput(), r.capacityBitsPerSecond()));
        }
        int labelW = 300;
        Axis x = new Axis(0, niceCeiling(max * 1.05), LEFT + labelW, RIGHT);
        int rowH = Math.min(48, (H - 40 - BARS_TOP) / bars.size());
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        g.drawString("goodput per phase against the capacity of the paths it used", LEFT, BARS_TOP - 12);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        for (int i = 0; i < bars.size(); i++) {
            PhaseResult r = bars.get(i);
            int top = BARS_TOP + i * rowH;
            int h = rowH - 12;
            g.setColor(Color.BLACK);
            g.drawString(r.name() + " (" + r.op() + ", " + r.paths() + (r.paths() == 1 ? " path" : " paths") + ")",
                    LEFT, top + h / 2);
            g.drawString(r.policy(), LEFT, top + h / 2 + 15);
            g.setColor(PALETTE[i % PALETTE.length]);
            g.fillRect(x.px(0), top, x.px(r.goodput()) - x.px(0), h);
            g.setColor(Color.BLACK);
            g.drawRect(x.px(0), top, x.px(r.capacityBitsPerSecond()) - x.px(0), h);
            g.drawString(String.format(Locale.ROOT, "%s  (%.0f%% of %s)", Units.rate(r.goodput()), r.utilisation() * 100,
                    Units.rate(r.capacityBitsPerSecond())), x.px(Math.max(r.goodput(), r.capacityBitsPerSecond())) + 8,
                    top + h / 2 + 5);
        }
    }

    private static void grid(Graphics2D g, Axis x, Axis y, String xLabel, String yLabel) {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        double yStep = niceStep(y.max / 6);
        for (double v = 0; v <= y.max + 1e-9; v += yStep) {
            g.setColor(new Color(0xeeeeee));
            g.drawLine(LEFT, y.px(v), RIGHT, y.px(v));
            g.setColor(Color.BLACK);
            g.drawString(String.format(Locale.ROOT, "%.0f", v / 1e6), LEFT - 48, y.px(v) + 4);
        }
        double xStep = niceStep(x.max / 10);
        for (double v = 0; v <= x.max + 1e-9; v += xStep) {
            g.setColor(Color.BLACK);
            g.drawLine(x.px(v), BOTTOM, x.px(v), BOTTOM + 5);
            g.drawString(String.format(Locale.ROOT, xStep < 1 ? "%.1f" : "%.0f", v), x.px(v) - 8, BOTTOM + 20);
        }
        g.drawRect(LEFT, TOP, RIGHT - LEFT, BOTTOM - TOP);
        g.drawString(xLabel, (LEFT + RIGHT) / 2 - 30, BOTTOM + 40);
        g.rotate(-Math.PI / 2);
        g.drawString(yLabel, -(TOP + BOTTOM) / 2 - 60, LEFT - 60);
        g.rotate(Math.PI / 2);
    }

    /** Maps a value range onto a pixel range. */
    private record Axis(double min, double max, int from, int to) {
        int px(double v) {
            double span = max - min;
            return (int) Math.round(from + (to - from) * (span <= 0 ? 0 : (v - min) / span));
        }
    }

    static double niceStep(double rough) {
        if (rough <= 0) {
            return 1;
        }
        double p = Math.pow(10, Math.floor(Math.log10(rough)));
        double f = rough / p;
        return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
    }

    static double niceCeiling(double v) {
        double step = niceStep(v / 5);
        return Math.ceil(v / step) * step;
    }
}

package dev.virtuoso.commands.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.virtuoso.commands.demo.Sample;

class ThroughputChartTest {

    @TempDir
    Path dir;

    @Test
    void writesAPngWithTheBandsAndBars() throws Exception {
        System.setProperty("java.awt.headless", "true");
        List<Sample> samples = new ArrayList<>();
        for (int i = 1; i <= 50; i++) {
            samples.add(new Sample(i * 0.2, "MP_WRITE", new double[] {200e6, 100e6}, 290e6, new long[2]));
        }
        List<PhaseResult> bars = List.of(new PhaseResult("single path", "WRITE", 1, "-", 64L << 20, 1_900_000_000L, 300_000_000,
                new long[] {64L << 20, 0}),
                new PhaseResult("multipath", "WRITE", 2, "lb-adaptive", 64L << 20, 1_000_000_000L, 450_000_000,
                new long[] {40L << 20, 24L << 20}));
        Path png = dir.resolve("chart.png");
        ThroughputChart.write(png, "test", List.of("path 0", "path 1"), samples,
                List.of(new ThroughputChart.Marker(5, "swap", true)), List.of(new ThroughputChart.Level(450e6, "sum")),
                bars);
        assertTrue(Files.size(png) > 1000);
        BufferedImage img = ImageIO.read(png.toFile());
        assertEquals(1280, img.getWidth());
        // the lowest band (path 0, palette blue blended at alpha 170 over white) fills the middle of the plot
        int rgb = img.getRGB(500, 400) & 0xffffff;
        int blue = rgb & 0xff;
        int red = (rgb >> 16) & 0xff;
        assertTrue(blue > red + 40, "expected path 0's blue band, got " + Integer.toHexString(rgb));
    }

    @Test
    void phasesAreDrawnApart() {
        List<Sample> s = List.of(new Sample(1, "a", new double[0], 1, new long[0]), new Sample(2, "a", new double[0], 1, new long[0]),
                new Sample(5, "b", new double[0], 1, new long[0]), new Sample(6, "a", new double[0], 1, new long[0]));
        List<List<Sample>> runs = ThroughputChart.runs(s);
        assertEquals(3, runs.size());
        assertEquals(2, runs.get(0).size());
        assertEquals("b", runs.get(1).get(0).phase());
    }

    @Test
    void niceScales() {
        assertEquals(1, ThroughputChart.niceStep(0.8), 1e-12);
        assertEquals(200, ThroughputChart.niceStep(170), 1e-12);
        assertEquals(5e7, ThroughputChart.niceStep(4.2e7), 1e-3);
        assertEquals(600e6, ThroughputChart.niceCeiling(570e6), 1e-3);
    }
}

package dev.virtuoso.commands.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class CommandLineSpecTest {

    private final CommandLineSpec spec = new CommandLineSpec("t", "[HOST]", 0, 1)
            .option('s', "size", "SIZE", "64K", "size")
            .option((char) 0, "op", "OP", "write", "op")
            .flag('a', "all", "all")
            .flag((char) 0, "report_gbits", "gbits");

    @Test
    void parsesShortLongInlineAndOperands() {
        ParsedArgs a = spec.parse("-s", "4096", "--op=read", "-a", "--report-gbits", "host1");
        assertEquals(4096, a.size("size", 1, 1 << 20));
        assertEquals("read", a.choice("op", "write", "read"));
        assertTrue(a.flag("all"));
        assertTrue(a.flag("report_gbits"));
        assertEquals(List.of("host1"), a.positionals());
        ParsedArgs b = spec.parse("-s8M", "--report_gbits");
        assertEquals(8 << 20, b.size("size", 1, 1L << 30));
        assertTrue(b.flag("report_gbits"));
    }

    @Test
    void appliesDefaults() {
        ParsedArgs a = spec.parse();
        assertEquals(64 * 1024, a.size("size", 1, 1 << 20));
        assertEquals("write", a.value("op"));
        assertFalse(a.flag("all"));
        assertFalse(a.has("size"));
        assertTrue(a.positionals().isEmpty());
    }

    @Test
    void rejectsUnknownOptionsMissingValuesAndExtraOperands() {
        assertThrows(IllegalArgumentException.class, () -> spec.parse("--bogus"));
        assertThrows(IllegalArgumentException.class, () -> spec.parse("-x"));
        assertThrows(IllegalArgumentException.class, () -> spec.parse("-s"));
        assertThrows(IllegalArgumentException.class, () -> spec.parse("--all=yes"));
        assertThrows(IllegalArgumentException.class, () -> spec.parse("-afoo"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> spec.parse("h1", "h2"));
        assertTrue(e.getMessage().contains("unexpected argument 'h2'"), e.getMessage());
    }

    @Test
    void rejectsBadValuesWhenRead() {
        assertThrows(IllegalArgumentException.class, () -> spec.parse("-s", "lots").size("size", 1, 100));
        assertThrows(IllegalArgumentException.class, () -> spec.parse("-s", "1M").size("size", 1, 100));
        assertThrows(IllegalArgumentException.class, () -> spec.parse("--op", "fly").choice("op", "write", "read"));
    }

    @Test
    void helpSkipsOperandChecksAndUsageListsOptions() {
        CommandLineSpec needsHost = new CommandLineSpec("c", "HOST", 1, 1);
        assertThrows(IllegalArgumentException.class, needsHost::parse);
        assertTrue(needsHost.parse("--help").help());
        String usage = spec.usage();
        assertTrue(usage.contains("-s, --size SIZE"), usage);
        assertTrue(usage.contains("(default 64K)"), usage);
        assertTrue(usage.contains("--report_gbits"), usage);
    }

    @Test
    void doubleDashEndsOptions() {
        assertEquals(List.of("-weird"), spec.parse("--", "-weird").positionals());
    }
}

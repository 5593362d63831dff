package dev.virtuoso.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LinkCommandTest {

    @Test
    void rateChangeKeepsTheOtherProperties() {
        assertEquals("rate=50m delay=100us queue=1000p", LinkCommand.withRate("rate=300m delay=100us queue=1000p", "50m"));
        assertEquals("rate=1g", LinkCommand.withRate("", "1g"));
    }
}

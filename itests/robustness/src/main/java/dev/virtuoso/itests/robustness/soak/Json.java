package dev.virtuoso.itests.robustness.soak;

import java.util.List;
import java.util.Map;

/** Writes maps, lists, strings, numbers and booleans as JSON (enough for the soak report). */
final class Json {
    private Json() {
    }

    static String write(Object value) {
        StringBuilder b = new StringBuilder();
        write(b, value, "");
        return b.append('\n').toString();
    }

    private static void write(StringBuilder b, Object v, String indent) {
        if (v == null) {
            b.append("null");
        } else if (v instanceof Map<?, ?> m) {
            b.append('{');
            String inner = indent + "  ";
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                b.append(first ? "\n" : ",\n").append(inner);
                string(b, String.valueOf(e.getKey()));
                b.append(": ");
                write(b, e.getValue(), inner);
                first = false;
            }
            b.append(first ? "}" : "\n" + indent + "}");
        } else if (v instanceof List<?> l) {
            b.append('[');
            String inner = indent + "  ";
            for (int i = 0; i < l.size(); i++) {
                b.append(i == 0 ? "\n" : ",\n").append(inner);
                write(b, l.get(i), inner);
            }
            b.append(l.isEmpty() ? "]" : "\n" + indent + "]");
        } else if (v instanceof Double d) {
            b.append(d.isNaN() || d.isInfinite() ? "null" : String.format(java.util.Locale.ROOT, "%.3f", d));
        } else if (v instanceof Number || v instanceof Boolean) {
            b.append(v);
        } else {
            string(b, v.toString());
        }
    }

    private static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }
}

package dev.virtuoso.reassembler;

/** The peer broke the reassembly protocol; the connection should drop it. */
public class ReassemblyException extends Exception {
    private static final long serialVersionUID = 1L;

    /** @param message what was wrong */
    public ReassemblyException(String message) {
        super(message);
    }
}

package dev.virtuoso.qpmanager.internal.bootstrap;

/**
 * The bootstrap and control protocol spoken over one TCP connection per multipath connection.
 *
 * <p>Every frame: {@code u32 magic "VRTU", u8 version, u8 type, u16 flags (0), u32 body length},
 * then the body; big-endian. The handshake is HELLO (client), CHALLENGE (server), CONNECT (client),
 * ACCEPT (server), READY (client); either side may answer ERROR and close. The same TCP connection
 * then stays open as the control channel (PING, DISCONNECT, path management). The reassembly's
 * advertisements, credits and reports travel on the paths (version 2; version 1 sent them here as
 * REASSEMBLY frames, type 18).
 */
public final class Protocol {
    /** "VRTU". */
    public static final int MAGIC = 0x56525455;
    /** The only version this implementation speaks. */
    public static final int VERSION = 2;
    public static final int HEADER_BYTES = 12;

    /** Largest handshake body accepted. */
    public static final int MAX_HANDSHAKE_BODY = 8 * 1024;
    /**
     * Largest control body accepted: path management frames are under 100 bytes, a NAK's or
     * DISCONNECT's text at most {@link #MAX_TEXT_BYTES} (version 1 allowed 64 KiB for the
     * reassembly's frames, which travel on the paths now).
     */
    public static final int MAX_CONTROL_BODY = 1024;
    /** Most paths one connection may have. */
    public static final int MAX_PATHS = dev.virtuoso.api.ConnectOptions.MAX_PATHS;
    /** Longest error or disconnect text carried. */
    public static final int MAX_TEXT_BYTES = 256;
    public static final int NONCE_BYTES = 32;
    public static final int MAC_BYTES = 32;

    // handshake
    public static final int HELLO = 1;
    public static final int CHALLENGE = 2;
    public static final int CONNECT = 3;
    public static final int ACCEPT = 4;
    public static final int READY = 5;
    public static final int ERROR = 6;

    // control
    public static final int PING = 16;
    public static final int DISCONNECT = 17;
    // 18: REASSEMBLY in version 1, not used since
    public static final int ADD_PATH = 19;
    public static final int ADD_PATH_ACK = 20;
    public static final int ADD_PATH_NAK = 21;
    public static final int PATH_READY = 22;
    public static final int REMOVE_PATH = 23;
    public static final int PATH_DRAINED = 24;
    public static final int REPAIR_PATH = 25;
    public static final int REPAIR_ACK = 26;
    public static final int REPAIR_NAK = 27;
    /** Connecting side to accepting side, empty body: its connect-time probe flows are over. */
    public static final int PROBES_DONE = 28;

    private Protocol() {
    }

    /** @return a readable name for a frame type */
    public static String typeName(int type) {
        return switch (type) {
            case HELLO -> "HELLO";
            case CHALLENGE -> "CHALLENGE";
            case CONNECT -> "CONNECT";
            case ACCEPT -> "ACCEPT";
            case READY -> "READY";
            case ERROR -> "ERROR";
            case PING -> "PING";
            case DISCONNECT -> "DISCONNECT";
            case ADD_PATH -> "ADD_PATH";
            case ADD_PATH_ACK -> "ADD_PATH_ACK";
            case ADD_PATH_NAK -> "ADD_PATH_NAK";
            case PATH_READY -> "PATH_READY";
            case REMOVE_PATH -> "REMOVE_PATH";
            case PATH_DRAINED -> "PATH_DRAINED";
            case REPAIR_PATH -> "REPAIR_PATH";
            case REPAIR_ACK -> "REPAIR_ACK";
            case REPAIR_NAK -> "REPAIR_NAK";
            case PROBES_DONE -> "PROBES_DONE";
            default -> "type " + type;
        };
    }
}

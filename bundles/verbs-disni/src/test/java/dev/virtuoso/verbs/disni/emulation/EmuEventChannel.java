package dev.virtuoso.verbs.disni.emulation;

import java.io.IOException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaEventChannel;

/** TESTS ONLY: an rdma_event_channel: a queue of events. */
final class EmuEventChannel extends RdmaEventChannel {
    final BlockingQueue<RdmaCmEvent> events = new LinkedBlockingQueue<>();

    EmuEventChannel() throws IOException {
        super(-1);
    }
}

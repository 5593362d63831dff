/**
 * Reassembler: MP_SEND / MP_RECV over several paths.
 *
 * <p>The receiver advertises every posted MP_RECV buffer (sequence number, address, rkey, length)
 * to the sender over the connection's control channel. The k-th MP_SEND fills the k-th MP_RECV:
 * a small message travels as one SEND with immediate (the sequence number) into a pre-posted slot
 * of a shared receive queue and is copied once into the MP_RECV buffer; a large one is written
 * by RDMA WRITE chunks, over any paths, straight into the advertised buffer, and once every chunk
 * completed the sender announces it placed with a notice on one of the paths: a SEND with immediate
 * (notice bit and sequence number) carrying the length, into a slot like a small message and charged
 * a slot credit like one ({@link dev.virtuoso.reassembler.Reassembly#nextNotice}). The control
 * channel carries advertisements, credits and failure reports only. Nothing is ordered across QPs, so
 * a receive completion is delivered only when its message is placed and every earlier one has been
 * delivered. Slots are flow-controlled by credits the receiver returns. On a device without SRQ
 * ({@code max_srq = 0}) every path QP holds a full set of slots on its own receive queue, so a
 * credit is good on any path; a failed path's flushed slots are not reposted and its set is reused
 * for the QP that replaces it.
 *
 * <p>The {@link dev.virtuoso.reassembler.Reassembler} service creates one
 * {@link dev.virtuoso.reassembler.Reassembly} per connection; it is used by the connection's engine
 * thread only.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.2.0")
package dev.virtuoso.reassembler;

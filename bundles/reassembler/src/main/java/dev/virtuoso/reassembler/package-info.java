/**
 * Reassembler: MP_SEND / MP_RECV over several paths.
 *
 * <p>The receiver advertises every posted MP_RECV buffer (sequence number, address, rkey, length)
 * to the sender in a control message on one of the paths. The k-th MP_SEND fills the k-th MP_RECV:
 * a small message into a remotely writable buffer travels as one RDMA WRITE with immediate (the
 * sequence number) straight into it, consuming a pre-posted slot of the shared receive queue for
 * its immediate only (no copy); into a buffer whose region does not grant remote write (no rkey may
 * reach it) it travels as one SEND with immediate into a slot and is copied once into the MP_RECV
 * buffer. A small WRITE whose attempt failed is re-sent as a SEND, and only once the failed path is
 * fenced, so no WRITE of it lands after its receive was delivered. A large one is written
 * by RDMA WRITE chunks, over any paths, straight into the advertised buffer, and once every chunk
 * completed the sender announces it placed with a notice on one of the paths: a SEND with immediate
 * (notice bit and sequence number) carrying the length, into a slot like a small message and charged
 * a slot credit like one ({@link dev.virtuoso.reassembler.Reassembly#nextNotice}). Advertisements,
 * credits and failure reports travel the same way, in control messages (SEND with immediate into a
 * slot, one in flight per direction, charged a credit), so the connection's TCP channel carries
 * none of the reassembly's traffic. A small message rides inside a control message, with whatever
 * records wait, when the records are due, or wait and both fit in one packet ({@link
 * dev.virtuoso.reassembler.Reassembly#reserveInline}): one SEND for both, its bytes copied at each
 * end. Advertisements wait for such a message (or one sent for credits or reports) while the sender
 * still holds at least half of the receives posted here, so with receives posted ahead a message
 * needs no advertisement packet of its own. Nothing is ordered across QPs, so a receive completion
 * is delivered only when its message is placed and every earlier one has been delivered. Slots are flow-controlled by credits the receiver returns. On a device without SRQ
 * ({@code max_srq = 0}) every path QP holds a full set of slots on its own receive queue, so a
 * credit is good on any path; a failed path's flushed slots are not reposted and its set is reused
 * for the QP that replaces it.
 *
 * <p>The {@link dev.virtuoso.reassembler.Reassembler} service creates one
 * {@link dev.virtuoso.reassembler.Reassembly} per connection; it is used by the connection's engine
 * thread only.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("3.2.0")
package dev.virtuoso.reassembler;

/**
 * Virtuoso application API: multipath RDMA connections (the paper's Table 1 in Java form).
 *
 * <p>An application gets the {@link dev.virtuoso.api.MultipathConnector} service, calls
 * {@link dev.virtuoso.api.MultipathConnector#listen} on one side and
 * {@link dev.virtuoso.api.MultipathConnector#connect} on the other ({@code MP_rdma_connect}), and
 * obtains a {@link dev.virtuoso.api.MultipathConnection} whose paths are one RC QP each. It
 * registers direct buffers ({@link dev.virtuoso.api.MultipathConnection#register}), posts MP work
 * requests (WRITE, READ, SEND, RECV) and polls or awaits {@link dev.virtuoso.api.MpCompletion}s.
 *
 * <h2>Conventions</h2>
 * <ul>
 * <li>Posting is non-blocking and thread-safe; completions are reported in the connection's single
 * completion queue, one per MP work request, and only after every chunk of it has completed.</li>
 * <li>Polling ({@link dev.virtuoso.api.MultipathConnection#pollCompletions}) allocates nothing;
 * {@link dev.virtuoso.api.MpCompletion} objects are owned and reused by the caller.</li>
 * <li>Invalid arguments throw {@link java.lang.IllegalArgumentException}; conditions a correct
 * program can meet at run time (connection closed, queue full, peer gone, timeouts) throw the
 * checked {@link dev.virtuoso.api.VirtuosoException} with a {@link dev.virtuoso.api.VirtuosoException.Reason}.</li>
 * <li>Everything that waits takes a timeout.</li>
 * </ul>
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.4.0")
package dev.virtuoso.api;

/**
 * Verbs-binding SPI: the RDMA verbs the Virtuoso core needs, named after libibverbs so RDMA
 * programmers recognise them ({@code ibv_reg_mr} is {@link dev.virtuoso.spi.verbs.IbvPd#regMr},
 * {@code ibv_post_send} is {@link dev.virtuoso.spi.verbs.IbvQp#postSend}, and so on).
 *
 * <p>Implemented by the soft RNIC ({@code provider=soft}) and the DiSNI binding
 * ({@code provider=disni}); each registers a {@link dev.virtuoso.spi.verbs.VerbsProvider} service.
 * The core never knows which one it has.
 *
 * <h2>Conventions</h2>
 * <ul>
 * <li>Work-request and completion objects ({@link dev.virtuoso.spi.verbs.IbvSendWr},
 * {@link dev.virtuoso.spi.verbs.IbvRecvWr}, {@link dev.virtuoso.spi.verbs.IbvWc}) are mutable and
 * owned by the caller. A provider copies what it needs during the call (as an RNIC copies a WQE
 * into its ring), so the caller may reuse the object as soon as the call returns. Steady-state
 * posting and polling allocate nothing.</li>
 * <li>Failures of a verb call (bad arguments, wrong QP state, queue full) throw
 * {@link dev.virtuoso.spi.verbs.VerbsException} with an errno-like code. Failures of a posted work
 * request are reported as a completion with an {@link dev.virtuoso.spi.verbs.IbvWcStatus}.</li>
 * <li>Threading: a provider's objects are safe for use by several threads unless a method says
 * otherwise, but the data path is designed for one owner thread per completion queue (the core's
 * engine thread); providers must not take locks that such a thread would contend for in the common
 * case.</li>
 * </ul>
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.2.0")
package dev.virtuoso.spi.verbs;

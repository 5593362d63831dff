package dev.virtuoso.spi.verbs;

import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A verbs binding: the entry point to one RDMA implementation (the soft RNIC, DiSNI, ...).
 *
 * <p>Registered as an OSGi service with the property {@value #PROVIDER_PROPERTY} naming the
 * binding ({@code soft}, {@code disni}); outside OSGi it is created with the implementation's
 * constructor. A provider is registered only when it can actually work (for DiSNI: native library
 * loaded and at least one device present).
 *
 * <p>Thread-safe. Devices opened through it must be closed by the opener; closing the provider
 * (on bundle stop) closes every context it opened.
 */
@ProviderType
public interface VerbsProvider {

    /** Service property naming the binding, e.g. {@code provider=soft}. */
    String PROVIDER_PROPERTY = "provider";

    /** @return the binding name, the value of {@value #PROVIDER_PROPERTY} */
    String name();

    /**
     * Lists the RDMA devices this binding can open.
     *
     * @return the devices, never {@code null}; empty when none is present
     * @throws VerbsException if the devices cannot be enumerated
     */
    List<RdmaDevice> devices() throws VerbsException;

    /**
     * Opens a device, as {@code ibv_open_device}.
     *
     * @param deviceName a name from {@link #devices()}, or {@code null} for the first device
     * @return a new context; the caller owns it and must close it
     * @throws VerbsException {@link VerbsException#ENODEV} if no such device exists
     */
    IbvContext openDevice(String deviceName) throws VerbsException;
}

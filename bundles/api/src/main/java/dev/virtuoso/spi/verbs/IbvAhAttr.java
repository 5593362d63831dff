package dev.virtuoso.spi.verbs;

import java.net.InetAddress;

/**
 * Address vector of an RC QP ({@code struct ibv_ah_attr} with its GRH), set at the RTR transition.
 * RoCEv2 GIDs are IP addresses, so they are given as {@link InetAddress}es. Mutable, owned by the
 * caller.
 */
public final class IbvAhAttr {
    private InetAddress dgid;
    private int sgidIndex;
    private int udpPort = 4791;
    private int hopLimit = 64;
    private int trafficClass;
    private int flowLabel;

    /** @return the destination GID as an IP address (the remote vNIC) */
    public InetAddress dgid() {
        return dgid;
    }

    /** @param dgid the remote vNIC address @return this */
    public IbvAhAttr dgid(InetAddress dgid) {
        this.dgid = dgid;
        return this;
    }

    /** @return the index of the local vNIC in {@link IbvContext#vnics()}'s GID table */
    public int sgidIndex() {
        return sgidIndex;
    }

    /** @param index local GID index: selects the vNIC, hence the path's source address @return this */
    public IbvAhAttr sgidIndex(int index) {
        this.sgidIndex = index;
        return this;
    }

    /**
     * @return the peer's RoCEv2 UDP port: 4791 on real RNICs; soft RNICs sharing one host use
     *     other ports, so the soft binding honours it (hardware bindings ignore it)
     */
    public int udpPort() {
        return udpPort;
    }

    /** @param port destination UDP port @return this */
    public IbvAhAttr udpPort(int port) {
        this.udpPort = port;
        return this;
    }

    public int hopLimit() {
        return hopLimit;
    }

    /** @param hopLimit IP TTL / hop limit @return this */
    public IbvAhAttr hopLimit(int hopLimit) {
        this.hopLimit = hopLimit;
        return this;
    }

    public int trafficClass() {
        return trafficClass;
    }

    /** @param tc IP traffic class (DSCP/ECN byte) @return this */
    public IbvAhAttr trafficClass(int tc) {
        this.trafficClass = tc;
        return this;
    }

    public int flowLabel() {
        return flowLabel;
    }

    /** @param label flow label; RNICs derive the UDP source port from it (ECMP entropy) @return this */
    public IbvAhAttr flowLabel(int label) {
        this.flowLabel = label;
        return this;
    }

    /**
     * Copies every field from another address vector.
     *
     * @param o source
     * @return this
     */
    public IbvAhAttr copyFrom(IbvAhAttr o) {
        dgid = o.dgid;
        sgidIndex = o.sgidIndex;
        udpPort = o.udpPort;
        hopLimit = o.hopLimit;
        trafficClass = o.trafficClass;
        flowLabel = o.flowLabel;
        return this;
    }
}

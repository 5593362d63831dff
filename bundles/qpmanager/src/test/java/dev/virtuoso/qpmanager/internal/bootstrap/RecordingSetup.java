package dev.virtuoso.qpmanager.internal.bootstrap;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.PathAnswer;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.PathOffer;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.ReceiveParams;

/** A path setup without verbs: QP numbers are invented, every call is recorded. */
final class RecordingSetup implements PathSetup {
    final List<InetAddress> vnics;
    final ReceiveParams params;
    final List<PathOffer> offered = new ArrayList<>();
    final List<PathAnswer> answered = new ArrayList<>();
    ReceiveParams peer;
    int nextQpn;

    RecordingSetup(int firstQpn, List<InetAddress> vnics) {
        this.nextQpn = firstQpn;
        this.vnics = vnics;
        // a scratch region too, so the exchange tests check it crosses the handshake intact
        this.params = new ReceiveParams(128, 16, 4096, 4096,
                new HandshakeMessages.ScratchRegion(0x7f00_0000_0000L + firstQpn, 0x1234 + firstQpn, 128 * 1024));
    }

    @Override
    public List<InetAddress> localAddresses() {
        return vnics;
    }

    @Override
    public ReceiveParams params() {
        return params;
    }

    @Override
    public List<PathOffer> offerPaths(List<InetAddress> local, List<InetAddress> remote) {
        for (int i = 0; i < local.size(); i++) {
            offered.add(new PathOffer(local.get(i), remote.get(i), 4791, nextQpn++, 100 + i));
        }
        return List.copyOf(offered);
    }

    @Override
    public void connectPaths(ReceiveParams p, List<PathAnswer> answers) {
        peer = p;
        answered.addAll(answers);
    }

    @Override
    public List<PathAnswer> acceptPaths(ReceiveParams p, List<PathOffer> offers) throws VirtuosoException {
        peer = p;
        for (PathOffer o : offers) {
            if (!vnics.contains(o.remote())) {
                throw new VirtuosoException(VirtuosoException.Reason.NO_PATH, o.remote() + " is not served here");
            }
            offered.add(o);
            answered.add(new PathAnswer(4792, nextQpn++, 200));
        }
        return List.copyOf(answered);
    }
}

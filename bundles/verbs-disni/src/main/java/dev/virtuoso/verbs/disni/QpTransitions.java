package dev.virtuoso.verbs.disni;

import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * The RC state machine of {@code ibv_modify_qp} as the SPI specifies it: which transitions are
 * legal and which attribute masks each one requires.
 */
final class QpTransitions {
    private QpTransitions() {
    }

    /**
     * @param from current state
     * @param attr requested attributes
     * @param mask attribute mask
     * @return the state after the modify
     * @throws VerbsException {@link VerbsException#EINVAL} for an illegal transition or a missing
     *     required attribute
     */
    static IbvQpState target(IbvQpState from, IbvQpAttr attr, int mask) throws VerbsException {
        if ((mask & IbvQpAttr.STATE) == 0) {
            // attribute-only modify: allowed in the states that accept one
            if (from == IbvQpState.RESET || from == IbvQpState.ERR) {
                throw new VerbsException(VerbsException.EINVAL, "modify without STATE in " + from);
            }
            return from;
        }
        IbvQpState to = attr.qpState();
        if (to == null) {
            throw new VerbsException(VerbsException.EINVAL, "STATE masked but qpState is null");
        }
        switch (to) {
            case RESET, ERR:
                return to;
            case INIT:
                if (from == IbvQpState.RESET) {
                    require(mask, IbvQpAttr.MASK_INIT, from, to);
                    return to;
                }
                if (from == IbvQpState.INIT) {
                    return to;
                }
                break;
            case RTR:
                if (from == IbvQpState.INIT) {
                    require(mask, IbvQpAttr.MASK_RTR, from, to);
                    return to;
                }
                break;
            case RTS:
                if (from == IbvQpState.RTR) {
                    require(mask, IbvQpAttr.MASK_RTS, from, to);
                    return to;
                }
                if (from == IbvQpState.RTS) {
                    return to;
                }
                break;
            default:
                break;
        }
        throw new VerbsException(VerbsException.EINVAL, "illegal QP transition " + from + " -> " + to);
    }

    private static void require(int mask, int required, IbvQpState from, IbvQpState to)
            throws VerbsException {
        int missing = required & ~mask;
        if (missing != 0) {
            throw new VerbsException(VerbsException.EINVAL, from + " -> " + to
                    + " misses required attribute mask bits 0x" + Integer.toHexString(missing));
        }
    }
}

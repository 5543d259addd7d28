package org.webrtcims.gw.sip.aka;

import java.util.Arrays;

/**
 * The UE side of one IMS-AKA subscription (TS 33.102 §6.3.3, TS 33.203 §6.1): checks the network's AUTN
 * (MAC-A and SQN freshness) and computes RES, CK and IK, or AUTS on a synchronisation failure. Keeps SQN_MS,
 * the highest sequence number accepted so far (TS 33.102 Annex C.2 without the IND array: one SQN counter).
 */
public final class Usim {
    /** TS 33.102 Annex C.2.2: a SQN more than Δ ahead of SQN_MS is refused too (Δ = 2^28). */
    static final long DELTA = 1L << 28;

    private final Milenage milenage;
    private final byte[] amf;
    private long sqnMs;

    public sealed interface Result permits Success, SyncFailure, MacFailure { }
    /** AUTN verified: RES is the digest password (RFC 3310 §3.3). */
    public record Success(byte[] res, byte[] ck, byte[] ik, long sqn) implements Result { }
    /** SQN not fresh: AUTS = (SQN_MS ⊕ AK*) ‖ MAC-S for the resynchronisation (RFC 3310 §3.4). */
    public record SyncFailure(byte[] auts, long sqn, long sqnMs) implements Result { }
    /** AUTN's MAC does not match: the network is not who it claims to be (TS 33.102 §6.3.3). */
    public record MacFailure() implements Result { }

    /** K, OPc (16 bytes each), the subscription's AMF (2 bytes) and the last SQN accepted (48 bits). */
    public Usim(byte[] k, byte[] opc, byte[] amf, long sqnMs) {
        if (amf.length != 2) throw new IllegalArgumentException("AMF is 2 bytes");
        if (sqnMs < 0 || sqnMs >= 1L << 48) throw new IllegalArgumentException("SQN is 48 bits");
        this.milenage = new Milenage(k, opc);
        this.amf = amf.clone();
        this.sqnMs = sqnMs;
    }

    public synchronized long sqnMs() { return sqnMs; }

    public byte[] amf() { return amf.clone(); }

    /** RAND (16 bytes) and AUTN = SQN ⊕ AK ‖ AMF ‖ MAC-A (16 bytes) from the network's challenge. */
    public synchronized Result authenticate(byte[] rand, byte[] autn) {
        if (rand.length != 16 || autn.length != 16) throw new IllegalArgumentException("RAND and AUTN are 16 bytes");
        byte[] sqnBytes = Milenage.xor(Arrays.copyOfRange(autn, 0, 6), milenage.f5(rand));
        byte[] autnAmf = Arrays.copyOfRange(autn, 6, 8);
        byte[] mac = Arrays.copyOfRange(autn, 8, 16);
        if (!java.security.MessageDigest.isEqual(mac, milenage.f1(rand, sqnBytes, autnAmf))) return new MacFailure();
        long sqn = toLong(sqnBytes);
        if (sqn <= sqnMs || sqn - sqnMs > DELTA) {
            byte[] ms = toBytes(sqnMs);
            byte[] auts = new byte[14];
            System.arraycopy(Milenage.xor(ms, milenage.f5star(rand)), 0, auts, 0, 6);
            System.arraycopy(milenage.f1star(rand, ms, new byte[2]), 0, auts, 6, 8); // AMF* = 0000
            return new SyncFailure(auts, sqn, sqnMs);
        }
        sqnMs = sqn;
        return new Success(milenage.f2(rand), milenage.f3(rand), milenage.f4(rand), sqn);
    }

    static long toLong(byte[] sqn) {
        long v = 0;
        for (byte b : sqn) v = (v << 8) | (b & 0xff);
        return v;
    }

    static byte[] toBytes(long sqn) {
        byte[] b = new byte[6];
        for (int i = 5; i >= 0; i--, sqn >>>= 8) b[i] = (byte) sqn;
        return b;
    }
}

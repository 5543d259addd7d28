package org.webrtcims.gw.sip.aka;

import javax.crypto.Cipher;
import javax.crypto.spec.SecretKeySpec;
import java.security.GeneralSecurityException;
import java.util.Arrays;

/**
 * The MILENAGE algorithm set (3GPP TS 35.206 §4.1) on javax.crypto's AES-128 as the kernel E_K:
 * f1/f1* (MAC-A, MAC-S), f2 (RES), f3 (CK), f4 (IK), f5/f5* (AK). Constants r1..r5 = 64, 0, 32, 64, 96
 * bits and c1..c5 = 0, 1, 2, 4, 8 in the last byte, as the specification fixes them. Checked against the
 * TS 35.208 test sets 1-6 in MilenageTest.
 */
public final class Milenage {
    private final Cipher aes;
    private final byte[] opc;

    /** K and OPc (16 bytes each). */
    public Milenage(byte[] k, byte[] opc) {
        if (k.length != 16 || opc.length != 16) throw new IllegalArgumentException("K and OPc are 16 bytes");
        this.aes = cipher(k);
        this.opc = opc.clone();
    }

    /** OPc = E_K(OP) ⊕ OP (TS 35.206 §4.1), for a USIM that holds OP. */
    public static byte[] opc(byte[] k, byte[] op) {
        if (k.length != 16 || op.length != 16) throw new IllegalArgumentException("K and OP are 16 bytes");
        return xor(encrypt(cipher(k), op), op);
    }

    /** MAC-A = f1(K, RAND, SQN, AMF): 8 bytes. */
    public byte[] f1(byte[] rand, byte[] sqn, byte[] amf) { return Arrays.copyOfRange(out1(rand, sqn, amf), 0, 8); }

    /** MAC-S = f1*(K, RAND, SQN, AMF): 8 bytes (resynchronisation, AMF 0000 per TS 33.102 §6.3.3). */
    public byte[] f1star(byte[] rand, byte[] sqn, byte[] amf) { return Arrays.copyOfRange(out1(rand, sqn, amf), 8, 16); }

    /** RES = f2: 8 bytes. */
    public byte[] f2(byte[] rand) { return Arrays.copyOfRange(out(rand, 0, 1), 8, 16); }

    /** CK = f3: 16 bytes. */
    public byte[] f3(byte[] rand) { return out(rand, 4, 2); }

    /** IK = f4: 16 bytes. */
    public byte[] f4(byte[] rand) { return out(rand, 8, 4); }

    /** AK = f5: 6 bytes. */
    public byte[] f5(byte[] rand) { return Arrays.copyOfRange(out(rand, 0, 1), 0, 6); }

    /** AK for resynchronisation = f5*: 6 bytes. */
    public byte[] f5star(byte[] rand) { return Arrays.copyOfRange(out(rand, 12, 8), 0, 6); }

    private byte[] temp(byte[] rand) {
        if (rand.length != 16) throw new IllegalArgumentException("RAND is 16 bytes");
        return encrypt(aes, xor(rand, opc));
    }

    /** OUT1 = E_K(TEMP ⊕ rot(IN1 ⊕ OPc, r1) ⊕ c1) ⊕ OPc, IN1 = SQN‖AMF‖SQN‖AMF, r1 = 64, c1 = 0. */
    private byte[] out1(byte[] rand, byte[] sqn, byte[] amf) {
        if (sqn.length != 6 || amf.length != 2) throw new IllegalArgumentException("SQN is 6 bytes, AMF 2");
        byte[] in1 = new byte[16];
        System.arraycopy(sqn, 0, in1, 0, 6);
        System.arraycopy(amf, 0, in1, 6, 2);
        System.arraycopy(in1, 0, in1, 8, 8);
        return xor(encrypt(aes, xor(temp(rand), rot(xor(in1, opc), 8))), opc);
    }

    /** OUTn = E_K(rot(TEMP ⊕ OPc, r) ⊕ c) ⊕ OPc for n = 2..5; r in bytes, c the last byte of the constant. */
    private byte[] out(byte[] rand, int rBytes, int c) {
        byte[] x = rot(xor(temp(rand), opc), rBytes);
        x[15] ^= (byte) c;
        return xor(encrypt(aes, x), opc);
    }

    /** Cyclic rotation of a 128-bit value towards the most significant bit by r bytes. */
    private static byte[] rot(byte[] x, int rBytes) {
        byte[] y = new byte[16];
        for (int i = 0; i < 16; i++) y[i] = x[(i + rBytes) % 16];
        return y;
    }

    static byte[] xor(byte[] a, byte[] b) {
        byte[] y = new byte[a.length];
        for (int i = 0; i < a.length; i++) y[i] = (byte) (a[i] ^ b[i]);
        return y;
    }

    private static Cipher cipher(byte[] k) {
        try {
            Cipher c = Cipher.getInstance("AES/ECB/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(k, "AES"));
            return c;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-128 is not available: " + e.getMessage(), e);
        }
    }

    private static byte[] encrypt(Cipher c, byte[] block) {
        try {
            synchronized (c) {
                return c.doFinal(block);
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES failed: " + e.getMessage(), e);
        }
    }
}

package org.webrtcims.gw.sip.aka;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.*;
import static org.webrtcims.gw.sip.aka.MilenageTest.h;
import static org.webrtcims.gw.sip.aka.MilenageTest.x;

/**
 * The UE side against a network side built here from Milenage (AUTN = SQN ⊕ AK ‖ AMF ‖ MAC-A,
 * TS 33.102 §6.3.2), with TS 35.208 test set 1's K, OPc and RAND.
 */
class UsimTest {
    static final byte[] K = h("465b5ce8b199b49faa5f0a2ee238a6bc"), OPC = h("cd63cb71954a9f4e48a5994e37a02baf");
    static final byte[] RAND = h("23553cbe9637a89d218ae64dae47bf35"), AMF = h("8000");
    final Milenage network = new Milenage(K, OPC);

    byte[] autn(long sqn, byte[] amf, byte[] rand) {
        byte[] s = Usim.toBytes(sqn), a = new byte[16];
        System.arraycopy(Milenage.xor(s, network.f5(rand)), 0, a, 0, 6);
        System.arraycopy(amf, 0, a, 6, 2);
        System.arraycopy(network.f1(rand, s, amf), 0, a, 8, 8);
        return a;
    }

    @Test
    void freshSqnGivesResCkIkAndAdvancesSqnMs() {
        Usim u = new Usim(K, OPC, AMF, 0x20);
        Usim.Success ok = assertInstanceOf(Usim.Success.class, u.authenticate(RAND, autn(0x21, AMF, RAND)));
        assertEquals("a54211d5e3ba50bf", x(ok.res()));   // TS 35.208 set 1 f2
        assertEquals("b40ba9a3c58b2a05bbf0d987b21bf8cb", x(ok.ck()));
        assertEquals("f769bcd751044604127672711c6d3441", x(ok.ik()));
        assertEquals(0x21, u.sqnMs());
        // the same vector again (a replay) is not fresh any more
        assertInstanceOf(Usim.SyncFailure.class, u.authenticate(RAND, autn(0x21, AMF, RAND)));
    }

    @Test
    void staleSqnGivesAutsTheNetworkCanVerify() {
        Usim u = new Usim(K, OPC, AMF, 0x100);
        Usim.SyncFailure sync = assertInstanceOf(Usim.SyncFailure.class, u.authenticate(RAND, autn(0x21, AMF, RAND)));
        assertEquals(0x21, sync.sqn());
        assertEquals(0x100, sync.sqnMs());
        assertEquals(0x100, u.sqnMs(), "a refused SQN does not move SQN_MS");
        // the HSS side (TS 33.102 §6.3.5): SQN_MS = AUTS[0..6] ⊕ f5*(RAND); MAC-S = f1*(SQN_MS, AMF 0000)
        byte[] auts = sync.auts();
        assertEquals(14, auts.length);
        byte[] sqnMs = Milenage.xor(Arrays.copyOfRange(auts, 0, 6), network.f5star(RAND));
        assertEquals(0x100, Usim.toLong(sqnMs));
        assertArrayEquals(network.f1star(RAND, sqnMs, new byte[2]), Arrays.copyOfRange(auts, 6, 14));
        // after the resync the network's SQN_MS + 1 is accepted
        assertInstanceOf(Usim.Success.class, u.authenticate(RAND, autn(0x101, AMF, RAND)));
    }

    @Test
    void sqnTooFarAheadIsRefused() {
        Usim u = new Usim(K, OPC, AMF, 0);
        assertInstanceOf(Usim.SyncFailure.class, u.authenticate(RAND, autn(Usim.DELTA + 1, AMF, RAND)));
        assertInstanceOf(Usim.Success.class, u.authenticate(RAND, autn(Usim.DELTA, AMF, RAND)));
    }

    @Test
    void wrongMacOrWrongKeyIsAMacFailure() {
        Usim u = new Usim(K, OPC, AMF, 0);
        byte[] a = autn(0x21, AMF, RAND);
        a[15] ^= 1;
        assertInstanceOf(Usim.MacFailure.class, u.authenticate(RAND, a));
        Usim other = new Usim(h("0396eb317b6d1c36f19c1c84cd6ffd16"), OPC, AMF, 0);
        assertInstanceOf(Usim.MacFailure.class, other.authenticate(RAND, autn(0x21, AMF, RAND)));
        assertEquals(0, u.sqnMs());
    }
}

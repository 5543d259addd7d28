/* IMS-AKA vectors for the lab HSS: Milenage from libosmocore (osmo_auth_gen_vec, TS 35.206). */
#ifndef HSS_AKA_H
#define HSS_AKA_H
#include <stdint.h>

struct hss_av {
	uint8_t rand[16], autn[16], xres[8], ck[16], ik[16];
	uint64_t sqn;  /* SQN used in this vector */
};

/* Next vector after *sqn (SQN+1, TS 33.102 C.1.1 with IND bits = 0); updates *sqn on success. */
int hss_aka_vector(const uint8_t k[16], const uint8_t opc[16], const uint8_t amf[2],
		   uint64_t *sqn, const uint8_t rand[16], struct hss_av *av);
/* Resynchronisation (TS 33.102 6.3.5): checks MAC-S of auts (14 bytes) against rand_auts, the
 * RAND of the challenge the UE refused; on success sets *sqn to SQN_MS and returns the next vector
 * (SQN_MS+1) with the fresh rand. Returns -1 when MAC-S does not verify. */
int hss_aka_resync(const uint8_t k[16], const uint8_t opc[16], const uint8_t amf[2],
		   uint64_t *sqn, const uint8_t rand_auts[16], const uint8_t auts[14],
		   const uint8_t rand[16], struct hss_av *av);
/* Fills n random bytes from the kernel; 0 on success. */
int hss_random(uint8_t *out, int n);
#endif

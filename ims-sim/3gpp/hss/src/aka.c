#include "aka.h"
#include <osmocom/crypt/auth.h>
#include <string.h>
#include <sys/random.h>

static void fill_aud(struct osmo_sub_auth_data *aud, const uint8_t k[16], const uint8_t opc[16],
		     const uint8_t amf[2], uint64_t sqn)
{
	memset(aud, 0, sizeof(*aud));
	aud->type = OSMO_AUTH_TYPE_UMTS;
	aud->algo = OSMO_AUTH_ALG_MILENAGE;
	memcpy(aud->u.umts.k, k, 16);
	memcpy(aud->u.umts.opc, opc, 16);
	memcpy(aud->u.umts.amf, amf, 2);
	aud->u.umts.opc_is_op = 0;
	aud->u.umts.sqn = sqn;
	aud->u.umts.ind_bitlen = 0;
	aud->u.umts.ind = 0;
}

static void take(struct hss_av *av, const struct osmo_auth_vector *v, const uint8_t rand[16], uint64_t sqn)
{
	memcpy(av->rand, rand, 16);
	memcpy(av->autn, v->autn, 16);
	memcpy(av->xres, v->res, 8);
	memcpy(av->ck, v->ck, 16);
	memcpy(av->ik, v->ik, 16);
	av->sqn = sqn;
}

int hss_aka_vector(const uint8_t k[16], const uint8_t opc[16], const uint8_t amf[2],
		   uint64_t *sqn, const uint8_t rand[16], struct hss_av *av)
{
	struct osmo_sub_auth_data aud;
	struct osmo_auth_vector v;
	fill_aud(&aud, k, opc, amf, *sqn);
	memset(&v, 0, sizeof(v));
	/* libosmocore takes the previous SQN and increments it (out: the SQN used) */
	if (osmo_auth_gen_vec(&v, &aud, rand) < 0 || v.res_len != 8)
		return -1;
	*sqn = aud.u.umts.sqn & 0xffffffffffffULL;
	take(av, &v, rand, *sqn);
	return 0;
}

int hss_aka_resync(const uint8_t k[16], const uint8_t opc[16], const uint8_t amf[2],
		   uint64_t *sqn, const uint8_t rand_auts[16], const uint8_t auts[14],
		   const uint8_t rand[16], struct hss_av *av)
{
	struct osmo_sub_auth_data aud;
	struct osmo_auth_vector v;
	fill_aud(&aud, k, opc, amf, *sqn);
	memset(&v, 0, sizeof(v));
	if (osmo_auth_gen_vec_auts(&v, &aud, auts, rand_auts, rand) < 0 || v.res_len != 8)
		return -1;
	*sqn = aud.u.umts.sqn & 0xffffffffffffULL;
	take(av, &v, rand, *sqn);
	return 0;
}

int hss_random(uint8_t *out, int n)
{
	return getrandom(out, n, 0) == n ? 0 : -1;
}

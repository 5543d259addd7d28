/* Milenage as the HSS uses it (libosmocore via aka.c) against the TS 35.208 test sets 1-6, and
 * resynchronisation with an AUTS computed by an independent UE side (TS 35.206 f1*, f5* on
 * OpenSSL AES, itself checked against the same test sets). */
#include "aka.h"
#include "subscribers.h"
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

static int failures, checks;
#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; printf("FAIL %s:%d: ", __FILE__, __LINE__); \
	printf(__VA_ARGS__); printf("\n"); } } while (0)

struct set { const char *k, *opc, *rand, *sqn, *amf, *f1, *f1s, *f2, *f5, *f3, *f4, *f5s; };
/* TS 35.208 clause 4.3, test sets 1-6 */
static const struct set sets[] = {
	{ "465b5ce8b199b49faa5f0a2ee238a6bc", "cd63cb71954a9f4e48a5994e37a02baf", "23553cbe9637a89d218ae64dae47bf35",
	  "ff9bb4d0b607", "b9b9", "4a9ffac354dfafb3", "01cfaf9ec4e871e9", "a54211d5e3ba50bf", "aa689c648370",
	  "b40ba9a3c58b2a05bbf0d987b21bf8cb", "f769bcd751044604127672711c6d3441", "451e8beca43b" },
	{ "0396eb317b6d1c36f19c1c84cd6ffd16", "53c15671c60a4b731c55b4a441c0bde2", "c00d603103dcee52c4478119494202e8",
	  "fd8eef40df7d", "af17", "5df5b31807e258b0", "a8c016e51ef4a343", "d3a628ed988620f0", "c47783995f72",
	  "58c433ff7a7082acd424220f2b67c556", "21a8c1f929702adb3e738488b9f5c5da", "30f1197061c1" },
	{ "fec86ba6eb707ed08905757b1bb44b8f", "1006020f0a478bf6b699f15c062e42b3", "9f7c8d021accf4db213ccff0c7f71a6a",
	  "9d0277595ffc", "725c", "9cabc3e99baf7281", "95814ba2b3044324", "8011c48c0c214ed2", "33484dc2136b",
	  "5dbdbb2954e8f3cde665b046179a5098", "59a92d3b476a0443487055cf88b2307b", "deacdd848cc6" },
	{ "9e5944aea94b81165c82fbf9f32db751", "a64a507ae1a2a98bb88eb4210135dc87", "ce83dbc54ac0274a157c17f80d017bd6",
	  "0b604a81eca8", "9e09", "74a58220cba84c49", "ac2cc74a96871837", "f365cd683cd92e96", "f0b9c08ad02e",
	  "e203edb3971574f5a94b0d61b816345d", "0c4524adeac041c4dd830d20854fc46b", "6085a86c6f63" },
	{ "4ab1deb05ca6ceb051fc98e77d026a84", "dcf07cbd51855290b92a07a9891e523e", "74b0cd6031a1c8339b2b6ce2b8c4a186",
	  "e880a1b580b6", "9f07", "49e785dd12626ef2", "9e85790336bb3fa2", "5860fc1bce351e7e", "31e11a609118",
	  "7657766b373d1c2138f307e3de9242f9", "1c42e960d89b8fa99f2744e0708ccb53", "fe2555e54aa9" },
	{ "6c38a116ac280c454f59332ee35c8c4f", "3803ef5363b947c6aaa225e58fae3934", "ee6466bc96202c5a557abbeff8babf63",
	  "414b98222181", "4464", "078adfb488241a57", "80246b8d0186bcf1", "16c8233f05a0ac28", "45b0f69ab06c",
	  "3f8c7587fe8e4b233af676aede30ba3b", "a7466cc1e6b2a1337d49d3b66e95d7b4", "1f53cd2b1113" },
};

static void hex(const char *s, uint8_t *out, size_t n)
{
	if (hss_hex(s, out, n)) {
		printf("bad hex in test data: %s\n", s);
		failures++;
	}
}

static uint64_t sqn48(const uint8_t b[6])
{
	uint64_t v = 0;
	for (int i = 0; i < 6; i++) v = (v << 8) | b[i];
	return v;
}

static void put48(uint64_t v, uint8_t b[6])
{
	for (int i = 5; i >= 0; i--, v >>= 8) b[i] = v & 0xff;
}

/* ---- the UE side, independent of libosmocore: TS 35.206 with AES-128 from OpenSSL ---- */
static void aes(const uint8_t k[16], const uint8_t in[16], uint8_t out[16])
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int l1 = 0, l2 = 0;
	EVP_EncryptInit_ex(c, EVP_aes_128_ecb(), NULL, k, NULL);
	EVP_CIPHER_CTX_set_padding(c, 0);
	EVP_EncryptUpdate(c, out, &l1, in, 16);
	EVP_EncryptFinal_ex(c, out + l1, &l2);
	EVP_CIPHER_CTX_free(c);
}

static void rot(const uint8_t in[16], int bytes, uint8_t out[16])
{
	for (int i = 0; i < 16; i++) out[i] = in[(i + bytes) % 16];
}

/* f1 and f1* (OUT1, r1 = 64, c1 = 0) */
static void ue_f1(const uint8_t k[16], const uint8_t opc[16], const uint8_t rand[16], const uint8_t sqn[6],
		  const uint8_t amf[2], uint8_t mac_a[8], uint8_t mac_s[8])
{
	uint8_t t[16], temp[16], in1[16], x[16], out[16];
	for (int i = 0; i < 16; i++) t[i] = rand[i] ^ opc[i];
	aes(k, t, temp);
	memcpy(in1, sqn, 6); memcpy(in1 + 6, amf, 2); memcpy(in1 + 8, sqn, 6); memcpy(in1 + 14, amf, 2);
	for (int i = 0; i < 16; i++) t[i] = in1[i] ^ opc[i];
	rot(t, 8, x);
	for (int i = 0; i < 16; i++) x[i] ^= temp[i];
	aes(k, x, out);
	for (int i = 0; i < 16; i++) out[i] ^= opc[i];
	memcpy(mac_a, out, 8);
	memcpy(mac_s, out + 8, 8);
}

/* f5* (OUT5, r5 = 96, c5 = ...08) */
static void ue_f5s(const uint8_t k[16], const uint8_t opc[16], const uint8_t rand[16], uint8_t ak[6])
{
	uint8_t t[16], temp[16], x[16], out[16];
	for (int i = 0; i < 16; i++) t[i] = rand[i] ^ opc[i];
	aes(k, t, temp);
	for (int i = 0; i < 16; i++) t[i] = temp[i] ^ opc[i];
	rot(t, 12, x);
	x[15] ^= 8;
	aes(k, x, out);
	for (int i = 0; i < 6; i++) ak[i] = out[i] ^ opc[i];
}

/* f5 (OUT2, r2 = 0, c2 = ...01): to recover SQN from an AUTN */
static void ue_f5(const uint8_t k[16], const uint8_t opc[16], const uint8_t rand[16], uint8_t ak[6])
{
	uint8_t t[16], temp[16], out[16];
	for (int i = 0; i < 16; i++) t[i] = rand[i] ^ opc[i];
	aes(k, t, temp);
	for (int i = 0; i < 16; i++) t[i] = temp[i] ^ opc[i];
	t[15] ^= 1;
	aes(k, t, out);
	for (int i = 0; i < 6; i++) ak[i] = out[i] ^ opc[i];
}

static void test_set(int n, const struct set *s)
{
	uint8_t k[16], opc[16], rand[16], sqn[6], amf[2], f1[8], f1s[8], f2[8], f5[6], f3[16], f4[16], f5s[6];
	hex(s->k, k, 16); hex(s->opc, opc, 16); hex(s->rand, rand, 16); hex(s->sqn, sqn, 6); hex(s->amf, amf, 2);
	hex(s->f1, f1, 8); hex(s->f1s, f1s, 8); hex(s->f2, f2, 8); hex(s->f5, f5, 6); hex(s->f3, f3, 16);
	hex(s->f4, f4, 16); hex(s->f5s, f5s, 6);

	/* HSS side: the vector for SQN needs the previous SQN (SQN - 1) in the table */
	uint64_t prev = sqn48(sqn) - 1;
	struct hss_av av;
	CHECK(hss_aka_vector(k, opc, amf, &prev, rand, &av) == 0, "set %d: vector", n);
	CHECK(prev == sqn48(sqn) && av.sqn == sqn48(sqn), "set %d: SQN advanced to %012llx", n, (unsigned long long)prev);
	CHECK(!memcmp(av.xres, f2, 8), "set %d: RES = f2", n);
	CHECK(!memcmp(av.ck, f3, 16), "set %d: CK = f3", n);
	CHECK(!memcmp(av.ik, f4, 16), "set %d: IK = f4", n);
	uint8_t autn[16];
	for (int i = 0; i < 6; i++) autn[i] = sqn[i] ^ f5[i];
	memcpy(autn + 6, amf, 2);
	memcpy(autn + 8, f1, 8);
	CHECK(!memcmp(av.autn, autn, 16), "set %d: AUTN = SQN^f5 || AMF || f1", n);

	/* the test's own UE side against the same set */
	uint8_t mac_a[8], mac_s[8], ak[6], aks[6];
	ue_f1(k, opc, rand, sqn, amf, mac_a, mac_s);
	ue_f5(k, opc, rand, ak);
	ue_f5s(k, opc, rand, aks);
	CHECK(!memcmp(mac_a, f1, 8) && !memcmp(mac_s, f1s, 8) && !memcmp(ak, f5, 6) && !memcmp(aks, f5s, 6),
	      "set %d: test UE side f1/f1*/f5/f5*", n);

	/* resync: the UE refused the vector above and reports SQN_MS = SQN + 1000 in AUTS */
	uint8_t sqn_ms[6], zero_amf[2] = { 0, 0 }, auts[14], new_rand[16];
	put48(sqn48(sqn) + 1000, sqn_ms);
	ue_f1(k, opc, rand, sqn_ms, zero_amf, mac_a, mac_s);
	for (int i = 0; i < 6; i++) auts[i] = sqn_ms[i] ^ aks[i];
	memcpy(auts + 6, mac_s, 8);
	memset(new_rand, 0x5a + n, 16);
	uint64_t hss_sqn = sqn48(sqn);
	CHECK(hss_aka_resync(k, opc, amf, &hss_sqn, rand, auts, new_rand, &av) == 0, "set %d: AUTS accepted", n);
	CHECK(hss_sqn == sqn48(sqn_ms) + 1 && av.sqn == hss_sqn, "set %d: SQN after resync %012llx, want SQN_MS+1", n,
	      (unsigned long long)hss_sqn);
	/* the UE recovers SQN_MS+1 from the new AUTN and its MAC-A verifies */
	uint8_t ak2[6], got_sqn[6];
	ue_f5(k, opc, new_rand, ak2);
	for (int i = 0; i < 6; i++) got_sqn[i] = av.autn[i] ^ ak2[i];
	ue_f1(k, opc, new_rand, got_sqn, amf, mac_a, mac_s);
	CHECK(sqn48(got_sqn) == sqn48(sqn_ms) + 1 && !memcmp(mac_a, av.autn + 8, 8) && !memcmp(av.rand, new_rand, 16),
	      "set %d: new AUTN carries SQN_MS+1 with a valid MAC-A", n);

	/* a corrupted AUTS (MAC-S) is refused and leaves the SQN alone */
	auts[13] ^= 1;
	hss_sqn = sqn48(sqn);
	CHECK(hss_aka_resync(k, opc, amf, &hss_sqn, rand, auts, new_rand, &av) != 0 && hss_sqn == sqn48(sqn),
	      "set %d: AUTS with a wrong MAC-S refused", n);
}

int main(void)
{
	for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
		test_set((int)i + 1, &sets[i]);
	/* consecutive vectors: SQN +1 each, fresh RAND gives distinct XRES */
	uint8_t k[16], opc[16], amf[2] = { 0x80, 0 }, r1[16], r2[16];
	hex(sets[0].k, k, 16); hex(sets[0].opc, opc, 16);
	uint64_t sqn = 0x20;
	struct hss_av a, b;
	CHECK(hss_random(r1, 16) == 0 && hss_random(r2, 16) == 0 && memcmp(r1, r2, 16), "random RANDs differ");
	CHECK(hss_aka_vector(k, opc, amf, &sqn, r1, &a) == 0 && a.sqn == 0x21, "first vector SQN 0x21");
	CHECK(hss_aka_vector(k, opc, amf, &sqn, r2, &b) == 0 && b.sqn == 0x22 && sqn == 0x22, "second vector SQN 0x22");
	CHECK(memcmp(a.xres, b.xres, 8), "distinct XRES");
	printf("%d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}

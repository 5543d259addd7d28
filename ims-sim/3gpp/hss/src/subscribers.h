/* Subscriber table of the lab HSS: one line per subscription (IMPI, its IMPUs, AKA credentials). */
#ifndef HSS_SUBSCRIBERS_H
#define HSS_SUBSCRIBERS_H
#include <stdint.h>
#include <stddef.h>

#define HSS_MAX_IMPUS 8
#define HSS_ID_LEN 256

enum hss_reg_state { HSS_NOT_REGISTERED = 0, HSS_REGISTERED = 1, HSS_UNREGISTERED = 2 };
/* How the S-CSCF authenticates the subscription (TS 24.229 5.4.1.1: "the authentication mechanism assigned
 * in the HSS"): IMS-AKA (MAR vectors), trusted node authentication (a WebRTC eP-CSCF/WAF authenticated
 * the user, TS 24.371 / TS 33.203; no MAR, the SAR is the first request), or SIP digest (TS 24.229 5.4.1.2.1B,
 * TS 29.229 SIP-Digest-Authenticate: the MAA carries HA1 of the subscriber's password, the S-CSCF challenges). */
enum hss_scheme { HSS_SCHEME_AKA = 0, HSS_SCHEME_TNA = 1, HSS_SCHEME_DIGEST = 2 };

struct hss_sub {
	char impi[HSS_ID_LEN];
	char impus[HSS_MAX_IMPUS][HSS_ID_LEN]; /* the implicit registration set, first = default */
	int n_impus;
	uint8_t k[16], opc[16], amf[2];
	uint64_t sqn;                          /* last SQN handed out (48 bits) */
	enum hss_reg_state state;
	char scscf[HSS_ID_LEN];                /* assigned S-CSCF SIP URI, "" when none */
	enum hss_scheme scheme;                /* optional 7th column: aka (default), tna or digest */
	char password[128];                    /* digest: the 8th column, the SIP password */
	int mar_since_sar;                     /* AKA: vectors were handed out since the last REGISTRATION SAR */
};

struct hss_db {
	struct hss_sub *subs;
	size_t n;
};

/* Parses a table; on error returns -1 and writes "<file>:<line>: <reason>" into err. */
int hss_db_load(const char *path, struct hss_db *db, char *err, size_t errlen);
int hss_db_parse(const char *text, const char *name, struct hss_db *db, char *err, size_t errlen);
void hss_db_free(struct hss_db *db);
struct hss_sub *hss_db_by_impi(struct hss_db *db, const char *impi);
struct hss_sub *hss_db_by_impu(struct hss_db *db, const char *impu);
int hss_sub_has_impu(const struct hss_sub *s, const char *impu);
/* Parses exactly n bytes of hex (2n digits); 0 on success. */
int hss_hex(const char *s, uint8_t *out, size_t n);
void hss_tohex(const uint8_t *in, size_t n, char *out);
/* The IMS subscription XML (TS 29.228 Annex E) for the SAA's User-Data; returns bytes written. */
int hss_user_data(const struct hss_sub *s, char *out, size_t outlen);
#endif

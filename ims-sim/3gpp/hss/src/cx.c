/* Cx server side of the lab HSS, on freeDiameter's dictionary and dispatcher. */
#include <openssl/evp.h>
#include "cx.h"
#include "aka.h"
#include <freeDiameter/freeDiameter-host.h>
#include <freeDiameter/libfdcore.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define VENDOR_3GPP 10415
#define APP_CX 16777216

enum { FIRST_REGISTRATION = 2001, SUBSEQUENT_REGISTRATION = 2002, UNREGISTERED_SERVICE = 2003,
       ERROR_USER_UNKNOWN = 5001, ERROR_IDENTITIES_DONT_MATCH = 5002,
       ERROR_IDENTITY_NOT_REGISTERED = 5003, ERROR_AUTH_SCHEME_NOT_SUPPORTED = 5006,
       ERROR_IN_ASSIGNMENT_TYPE = 5007 };
/* Server-Assignment-Type values (TS 29.229 6.3.15) */
enum { SAT_NO_ASSIGNMENT = 0, SAT_REGISTRATION = 1, SAT_RE_REGISTRATION = 2, SAT_UNREGISTERED_USER = 3,
       SAT_TIMEOUT_DEREGISTRATION = 4, SAT_USER_DEREGISTRATION = 5,
       SAT_TIMEOUT_DEREGISTRATION_STORE_SERVER_NAME = 6, SAT_USER_DEREGISTRATION_STORE_SERVER_NAME = 7,
       SAT_ADMINISTRATIVE_DEREGISTRATION = 8, SAT_AUTHENTICATION_FAILURE = 9,
       SAT_AUTHENTICATION_TIMEOUT = 10, SAT_DEREGISTRATION_TOO_MUCH_DATA = 11 };

static struct hss_db *g_db;
static const char *g_default_scscf;
static int g_log_vectors;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dict_object *d_app, *d_vendor;
static struct dict_object *a_user_name, *a_public_identity, *a_server_name, *a_server_capabilities,
	*a_mandatory_cap, *a_optional_cap, *a_sip_number_auth_items, *a_sip_auth_data_item,
	*a_sip_item_number, *a_sip_auth_scheme, *a_sip_authenticate, *a_sip_authorization,
	*a_ck, *a_ik, *a_server_assignment_type, *a_user_data, *a_experimental_result,
	*a_experimental_result_code, *a_vendor_id, *a_auth_session_state,
	*a_vendor_specific_app_id, *a_auth_app_id, *a_dest_host, *a_dest_realm, *a_dereg_reason,
	*a_reason_code, *a_reason_info, *a_result_code, *a_sip_digest_authenticate, *a_digest_realm, *a_digest_qop,
	*a_digest_ha1;
static struct dict_object *c_rtr;

#define DICT (fd_g_config->cnf_dict)

static int find_avp(const char *name, struct dict_object **o)
{
	int rc = fd_dict_search(DICT, DICT_AVP, AVP_BY_NAME_ALL_VENDORS, name, o, ENOENT);
	if (rc)
		fprintf(stderr, "hss: AVP %s is not in the dictionary (load dict_dcca_3gpp.fdx)\n", name);
	return rc;
}

/* Public-Identity (601) is missing from freeDiameter 1.2.1's dict_dcca_3gpp; define it if absent. */
static int ensure_public_identity(void)
{
	if (!fd_dict_search(DICT, DICT_AVP, AVP_BY_NAME_ALL_VENDORS, "Public-Identity", &a_public_identity, ENOENT))
		return 0;
	struct dict_object *utf8;
	struct dict_avp_data d = { 601, VENDOR_3GPP, "Public-Identity", AVP_FLAG_VENDOR | AVP_FLAG_MANDATORY,
				   AVP_FLAG_VENDOR | AVP_FLAG_MANDATORY, AVP_TYPE_OCTETSTRING };
	if (fd_dict_search(DICT, DICT_TYPE, TYPE_BY_NAME, "UTF8String", &utf8, ENOENT))
		return -1;
	return fd_dict_new(DICT, DICT_AVP, &d, utf8, &a_public_identity);
}

/* Reason-Code (616, in Deregistration-Reason) may be missing from dict_dcca_3gpp as well. */
static int ensure_reason_code(void)
{
	if (!fd_dict_search(DICT, DICT_AVP, AVP_BY_NAME_ALL_VENDORS, "Reason-Code", &a_reason_code, ENOENT))
		return 0;
	struct dict_avp_data d = { 616, VENDOR_3GPP, "Reason-Code", AVP_FLAG_VENDOR | AVP_FLAG_MANDATORY,
				   AVP_FLAG_VENDOR | AVP_FLAG_MANDATORY, AVP_TYPE_INTEGER32 };
	return fd_dict_new(DICT, DICT_AVP, &d, NULL, &a_reason_code);
}

static int command(int code, const char *req, const char *ans, struct dict_object **o)
{
	struct dict_object *r, *a;
	struct dict_cmd_data rd = { code, (char *)req, CMD_FLAG_REQUEST | CMD_FLAG_PROXIABLE | CMD_FLAG_ERROR,
				    CMD_FLAG_REQUEST | CMD_FLAG_PROXIABLE };
	struct dict_cmd_data ad = { code, (char *)ans, CMD_FLAG_REQUEST | CMD_FLAG_PROXIABLE, CMD_FLAG_PROXIABLE };
	command_code_t c = code;
	if (fd_dict_search(DICT, DICT_COMMAND, CMD_BY_CODE_R, &c, &r, ENOENT)) {
		if (fd_dict_new(DICT, DICT_COMMAND, &rd, d_app, &r))
			return -1;
	}
	if (fd_dict_search(DICT, DICT_COMMAND, CMD_BY_CODE_A, &c, &a, ENOENT)) {
		if (fd_dict_new(DICT, DICT_COMMAND, &ad, d_app, &a))
			return -1;
	}
	*o = r;
	return 0;
}

/* ---- reading requests ---- */

/* The first AVP of this model in a message or, for a grouped AVP, among its children
 * (fd_msg_search_avp only takes messages). */
static struct avp *find(msg_or_avp *parent, struct dict_object *model)
{
	struct avp *avp = NULL;
	struct dict_object *m;
	if (fd_msg_browse(parent, MSG_BRW_FIRST_CHILD, &avp, NULL))
		return NULL;
	for (; avp; ) {
		if (!fd_msg_model(avp, &m) && m == model)
			return avp;
		if (fd_msg_browse(avp, MSG_BRW_NEXT, &avp, NULL))
			return NULL;
	}
	return NULL;
}

static int avp_str(msg_or_avp *parent, struct dict_object *model, char *out, size_t outlen)
{
	struct avp *avp = find(parent, model);
	struct avp_hdr *h;
	out[0] = 0;
	if (!avp || fd_msg_avp_hdr(avp, &h) || !h->avp_value)
		return -1;
	size_t n = h->avp_value->os.len < outlen - 1 ? h->avp_value->os.len : outlen - 1;
	memcpy(out, h->avp_value->os.data, n);
	out[n] = 0;
	return (int)h->avp_value->os.len;
}

static int avp_u32(msg_or_avp *parent, struct dict_object *model, uint32_t *v)
{
	struct avp *avp = find(parent, model);
	struct avp_hdr *h;
	if (!avp || fd_msg_avp_hdr(avp, &h) || !h->avp_value)
		return -1;
	*v = h->avp_value->u32;
	return 0;
}

/* ---- building answers ---- */

static int add_os(msg_or_avp *parent, struct dict_object *model, const void *data, size_t len)
{
	struct avp *avp;
	union avp_value v;
	v.os.data = (uint8_t *)data;
	v.os.len = len;
	if (fd_msg_avp_new(model, 0, &avp) || fd_msg_avp_setvalue(avp, &v) || fd_msg_avp_add(parent, MSG_BRW_LAST_CHILD, avp))
		return -1;
	return 0;
}
#define add_str(p, m, s) add_os(p, m, s, strlen(s))

static int add_u32(msg_or_avp *parent, struct dict_object *model, uint32_t u)
{
	struct avp *avp;
	union avp_value v;
	v.u32 = u;
	if (fd_msg_avp_new(model, 0, &avp) || fd_msg_avp_setvalue(avp, &v) || fd_msg_avp_add(parent, MSG_BRW_LAST_CHILD, avp))
		return -1;
	return 0;
}

static int add_common(struct msg *ans)
{
	struct avp *g;
	if (fd_msg_avp_new(a_vendor_specific_app_id, 0, &g) || add_u32(g, a_vendor_id, VENDOR_3GPP) ||
	    add_u32(g, a_auth_app_id, APP_CX) || fd_msg_avp_add(ans, MSG_BRW_LAST_CHILD, g))
		return -1;
	return add_u32(ans, a_auth_session_state, 1 /* NO_STATE_MAINTAINED */);
}

/* Turns *msg (the request) into its answer; code 2001 = Result-Code DIAMETER_SUCCESS, other codes
 * go into Experimental-Result (3GPP) except the base protocol's 5xxx given as negative numbers. */
static int answer(struct msg **msg, int experimental)
{
	if (fd_msg_new_answer_from_req(DICT, msg, 0))
		return -1;
	if (add_common(*msg))
		return -1;
	if (experimental == 0)
		return fd_msg_rescode_set(*msg, "DIAMETER_SUCCESS", NULL, NULL, 1);
	if (experimental < 0)
		return fd_msg_rescode_set(*msg, experimental == -5005 ? "DIAMETER_MISSING_AVP" : "DIAMETER_UNABLE_TO_COMPLY", NULL, NULL, 1);
	struct avp *g;
	if (fd_msg_add_origin(*msg, 0) || fd_msg_avp_new(a_experimental_result, 0, &g) ||
	    add_u32(g, a_vendor_id, VENDOR_3GPP) || add_u32(g, a_experimental_result_code, experimental) ||
	    fd_msg_avp_add(*msg, MSG_BRW_LAST_CHILD, g))
		return -1;
	return 0;
}

static int send_answer(struct msg **msg, const char *what, int code)
{
	fprintf(stderr, "hss: %s -> %d\n", what, code ? code : 2001);
	return fd_msg_send(msg, NULL, NULL);
}

static int add_server(struct msg *ans, const struct hss_sub *s)
{
	if (s->scscf[0])
		return add_str(ans, a_server_name, s->scscf);
	if (g_default_scscf)
		return add_str(ans, a_server_name, g_default_scscf);
	struct avp *g;
	/* no mandatory capability: any S-CSCF of the I-CSCF's list will do. Kamailio's cdp drops a
	 * message with an empty grouped AVP, hence one Optional-Capability (0) */
	if (fd_msg_avp_new(a_server_capabilities, 0, &g) || add_u32(g, a_optional_cap, 0) ||
	    fd_msg_avp_add(ans, MSG_BRW_LAST_CHILD, g))
		return -1;
	return 0;
}

/* UAR (TS 29.228 6.1.1): is this IMPI/IMPU known, and which S-CSCF serves or may serve it */
static int on_uar(struct msg **msg, struct avp *avp, struct session *sess, void *opaque, enum disp_action *act)
{
	char impi[HSS_ID_LEN], impu[HSS_ID_LEN], what[600];
	(void)avp; (void)sess; (void)opaque;
	*act = DISP_ACT_CONT;
	int has_impi = avp_str(*msg, a_user_name, impi, sizeof impi) >= 0;
	int has_impu = avp_str(*msg, a_public_identity, impu, sizeof impu) >= 0;
	snprintf(what, sizeof what, "UAR %s %s", impi, impu);
	if (!has_impi || !has_impu) {
		if (answer(msg, -5005)) return -1;
		return send_answer(msg, what, 5005);
	}
	pthread_mutex_lock(&g_lock);
	struct hss_sub *s = hss_db_by_impi(g_db, impi);
	int code;
	if (!s || !hss_db_by_impu(g_db, impu))
		code = ERROR_USER_UNKNOWN;
	else if (!hss_sub_has_impu(s, impu))
		code = ERROR_IDENTITIES_DONT_MATCH;
	else if (s->state == HSS_REGISTERED)
		code = SUBSEQUENT_REGISTRATION;
	else if (s->state == HSS_UNREGISTERED)
		code = UNREGISTERED_SERVICE;
	else
		code = FIRST_REGISTRATION;
	int rc = answer(msg, code);
	if (!rc && code < 3000)
		rc = add_server(*msg, s);
	pthread_mutex_unlock(&g_lock);
	return rc ? rc : send_answer(msg, what, code);
}

/* The MAA of a SIP digest subscription (TS 29.229 6.3.9, 6.3.10): SIP-Authentication-Scheme "SIP Digest" and
 * SIP-Digest-Authenticate with Digest-Realm, Digest-QoP auth and Digest-HA1; the S-CSCF makes the nonce and checks
 * the response. Called with g_lock released; s stays valid (the table is never changed after load). */
static int on_mar_digest(struct msg **msg, const char *what, struct hss_sub *s, const char *impi, const char *impu,
			 const char *server)
{
	const char *realm = strchr(impi, '@') + 1; /* the IMPI is user@realm (subscribers.c checks it) */
	char a1[HSS_ID_LEN * 2 + sizeof s->password + 2], ha1[33];
	uint8_t md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	snprintf(a1, sizeof a1, "%s:%s:%s", impi, realm, s->password);
	if (!EVP_Digest(a1, strlen(a1), md, &mdlen, EVP_md5(), NULL) || mdlen != 16) {
		if (answer(msg, -1)) return -1;
		return send_answer(msg, what, 5012);
	}
	hss_tohex(md, 16, ha1);
	pthread_mutex_lock(&g_lock);
	s->mar_since_sar = 1;
	if (!s->scscf[0] && server[0])
		snprintf(s->scscf, sizeof s->scscf, "%s", server);
	pthread_mutex_unlock(&g_lock);
	struct avp *g, *d;
	int rc = answer(msg, 0);
	rc |= add_str(*msg, a_user_name, impi);
	rc |= add_str(*msg, a_public_identity, impu);
	rc |= add_u32(*msg, a_sip_number_auth_items, 1);
	rc |= fd_msg_avp_new(a_sip_auth_data_item, 0, &g);
	rc |= add_u32(g, a_sip_item_number, 1);
	rc |= add_str(g, a_sip_auth_scheme, "SIP Digest");
	rc |= fd_msg_avp_new(a_sip_digest_authenticate, 0, &d);
	rc |= add_str(d, a_digest_realm, realm);
	rc |= add_str(d, a_digest_qop, "auth");
	rc |= add_str(d, a_digest_ha1, ha1);
	rc |= fd_msg_avp_add(g, MSG_BRW_LAST_CHILD, d);
	rc |= fd_msg_avp_add(*msg, MSG_BRW_LAST_CHILD, g);
	fprintf(stderr, "hss: MAR %s: SIP Digest, HA1 for realm %s\n", impi, realm);
	return rc ? -1 : send_answer(msg, what, 0);
}

/* MAR (TS 29.228 6.3): authentication vectors, with resynchronisation when the request carries
 * SIP-Authorization = RAND || AUTS (TS 33.203 6.1.2 / TS 29.229 6.3.12) */
static int on_mar(struct msg **msg, struct avp *avp, struct session *sess, void *opaque, enum disp_action *act)
{
	char impi[HSS_ID_LEN], impu[HSS_ID_LEN], server[HSS_ID_LEN], scheme[64] = "", what[700];
	uint8_t authz[64];
	int authz_len = -1;
	uint32_t n = 1;
	(void)avp; (void)sess; (void)opaque;
	*act = DISP_ACT_CONT;
	int has_impi = avp_str(*msg, a_user_name, impi, sizeof impi) >= 0;
	int has_impu = avp_str(*msg, a_public_identity, impu, sizeof impu) >= 0;
	avp_str(*msg, a_server_name, server, sizeof server);
	avp_u32(*msg, a_sip_number_auth_items, &n);
	struct avp *item = find(*msg, a_sip_auth_data_item);
	if (item) {
		avp_str(item, a_sip_auth_scheme, scheme, sizeof scheme);
		authz_len = avp_str(item, a_sip_authorization, (char *)authz, sizeof authz);
	}
	snprintf(what, sizeof what, "MAR %s %s scheme=%s items=%u", impi, impu, scheme, n);
	if (!has_impi || !has_impu) {
		if (answer(msg, -5005)) return -1;
		return send_answer(msg, what, 5005);
	}
	/* what the S-CSCF asks for: AKA, SIP digest, or "Unknown" (HSS-Selected: the subscription's own scheme) */
	int want_aka = !strcmp(scheme, "Digest-AKAv1-MD5") || !strcmp(scheme, "Digest-AKAv2-MD5");
	int want_digest = !strcmp(scheme, "SIP Digest");
	if (scheme[0] && !want_aka && !want_digest && strcasecmp(scheme, "Unknown")) {
		if (answer(msg, ERROR_AUTH_SCHEME_NOT_SUPPORTED)) return -1;
		return send_answer(msg, what, ERROR_AUTH_SCHEME_NOT_SUPPORTED);
	}
	if (n < 1) n = 1;
	if (n > 5) n = 5;
	pthread_mutex_lock(&g_lock);
	struct hss_sub *s = hss_db_by_impi(g_db, impi);
	int code = 0, rc = 0;
	if (!s || !hss_db_by_impu(g_db, impu))
		code = ERROR_USER_UNKNOWN;
	else if (!hss_sub_has_impu(s, impu))
		code = ERROR_IDENTITIES_DONT_MATCH;
	else if (s->scheme == HSS_SCHEME_TNA) {
		/* trusted node authentication only: the HSS holds no AKA scheme for this subscription */
		fprintf(stderr, "hss: MAR %s: scheme tna (trusted node authentication), no AKA vectors\n", impi);
		code = ERROR_AUTH_SCHEME_NOT_SUPPORTED;
	} else if ((s->scheme == HSS_SCHEME_DIGEST && want_aka) || (s->scheme == HSS_SCHEME_AKA && want_digest)) {
		fprintf(stderr, "hss: MAR %s: scheme %s asked, the subscription's is %s\n", impi, scheme,
			s->scheme == HSS_SCHEME_DIGEST ? "digest" : "aka");
		code = ERROR_AUTH_SCHEME_NOT_SUPPORTED;
	} else if (s->scheme == HSS_SCHEME_DIGEST) {
		/* SIP digest (TS 29.229 6.3.9): one item with HA1 = MD5(IMPI ":" realm ":" password), realm the IMPI's */
		pthread_mutex_unlock(&g_lock);
		return on_mar_digest(msg, what, s, impi, impu, server);
	}
	struct hss_av av[5];
	uint32_t made = 0;
	int resync = 0;
	if (!code) {
		uint64_t sqn = s->sqn;
		for (; made < n; made++) {
			uint8_t rnd[16];
			if (hss_random(rnd, 16)) break;
			int r;
			if (made == 0 && authz_len == 30) {
				resync = 1;
				r = hss_aka_resync(s->k, s->opc, s->amf, &sqn, authz, authz + 16, rnd, &av[0]);
				if (r) {
					fprintf(stderr, "hss: MAR %s: AUTS does not verify (MAC-S), SQN stays %012llx\n",
						impi, (unsigned long long)s->sqn);
					break;
				}
			} else {
				r = hss_aka_vector(s->k, s->opc, s->amf, &sqn, rnd, &av[made]);
				if (r) break;
			}
		}
		if (made == 0) {
			code = -1; /* UNABLE_TO_COMPLY */
		} else {
			s->sqn = sqn;
			s->mar_since_sar = 1;
			if (!s->scscf[0] && server[0])
				snprintf(s->scscf, sizeof s->scscf, "%s", server);
		}
	}
	rc = answer(msg, code);
	if (!rc && !code) {
		rc |= add_str(*msg, a_user_name, impi);
		rc |= add_str(*msg, a_public_identity, impu);
		rc |= add_u32(*msg, a_sip_number_auth_items, made);
		for (uint32_t i = 0; i < made && !rc; i++) {
			uint8_t nonce[32];
			struct avp *g;
			memcpy(nonce, av[i].rand, 16);
			memcpy(nonce + 16, av[i].autn, 16);
			rc |= fd_msg_avp_new(a_sip_auth_data_item, 0, &g);
			rc |= add_u32(g, a_sip_item_number, i + 1);
			rc |= add_str(g, a_sip_auth_scheme, "Digest-AKAv1-MD5");
			rc |= add_os(g, a_sip_authenticate, nonce, 32);
			rc |= add_os(g, a_sip_authorization, av[i].xres, 8);
			rc |= add_os(g, a_ck, av[i].ck, 16);
			rc |= add_os(g, a_ik, av[i].ik, 16);
			rc |= fd_msg_avp_add(*msg, MSG_BRW_LAST_CHILD, g);
			char xres[17], rnd[33];
			hss_tohex(av[i].xres, 8, xres);
			hss_tohex(av[i].rand, 16, rnd);
			fprintf(stderr, "hss: MAR %s vector %u%s sqn=%012llx rand=%s%s%s\n", impi, i + 1,
				resync && i == 0 ? " after resync (AUTS verified)" : "",
				(unsigned long long)av[i].sqn, rnd, g_log_vectors ? " xres=" : "",
				g_log_vectors ? xres : "");
		}
	}
	pthread_mutex_unlock(&g_lock);
	return rc ? -1 : send_answer(msg, what, code < 0 ? 5012 : code);
}

/* SAR (TS 29.228 6.1.2): the S-CSCF takes (or gives back) the user; answer with the user profile */
static int on_sar(struct msg **msg, struct avp *avp, struct session *sess, void *opaque, enum disp_action *act)
{
	char impi[HSS_ID_LEN], impu[HSS_ID_LEN], server[HSS_ID_LEN], what[1000];
	uint32_t sat = SAT_NO_ASSIGNMENT;
	(void)avp; (void)sess; (void)opaque;
	*act = DISP_ACT_CONT;
	int has_impi = avp_str(*msg, a_user_name, impi, sizeof impi) >= 0;
	int has_impu = avp_str(*msg, a_public_identity, impu, sizeof impu) >= 0;
	avp_str(*msg, a_server_name, server, sizeof server);
	int has_sat = avp_u32(*msg, a_server_assignment_type, &sat) == 0;
	snprintf(what, sizeof what, "SAR %s %s type=%u server=%s", impi, impu, sat, server);
	if ((!has_impi && !has_impu) || !has_sat || !server[0]) {
		if (answer(msg, -5005)) return -1;
		return send_answer(msg, what, 5005);
	}
	pthread_mutex_lock(&g_lock);
	struct hss_sub *s = has_impi ? hss_db_by_impi(g_db, impi) : hss_db_by_impu(g_db, impu);
	int code = 0, with_profile = 0;
	if (!s || (has_impu && !hss_db_by_impu(g_db, impu)))
		code = ERROR_USER_UNKNOWN;
	else if (has_impu && !hss_sub_has_impu(s, impu))
		code = ERROR_IDENTITIES_DONT_MATCH;
	else switch (sat) {
	case SAT_REGISTRATION:
	case SAT_RE_REGISTRATION:
		if (s->scheme == HSS_SCHEME_AKA && !s->mar_since_sar) {
			/* an AKA subscription registers only after the S-CSCF fetched vectors (MAR): a REGISTER that
			 * skipped authentication (trusted node) is not allowed for it */
			fprintf(stderr, "hss: SAR %s: scheme aka but no MAR since the last registration: refused\n", s->impi);
			code = -1;
			break;
		}
		s->mar_since_sar = 0;
		s->state = HSS_REGISTERED;
		snprintf(s->scscf, sizeof s->scscf, "%s", server);
		with_profile = 1;
		break;
	case SAT_UNREGISTERED_USER:
		s->state = HSS_UNREGISTERED;
		snprintf(s->scscf, sizeof s->scscf, "%s", server);
		with_profile = 1;
		break;
	case SAT_NO_ASSIGNMENT:
		with_profile = 1;
		break;
	case SAT_TIMEOUT_DEREGISTRATION:
	case SAT_USER_DEREGISTRATION:
	case SAT_ADMINISTRATIVE_DEREGISTRATION:
	case SAT_DEREGISTRATION_TOO_MUCH_DATA:
		s->state = HSS_NOT_REGISTERED;
		s->scscf[0] = 0;
		break;
	case SAT_TIMEOUT_DEREGISTRATION_STORE_SERVER_NAME:
	case SAT_USER_DEREGISTRATION_STORE_SERVER_NAME:
		s->state = HSS_NOT_REGISTERED;
		break;
	case SAT_AUTHENTICATION_FAILURE:
	case SAT_AUTHENTICATION_TIMEOUT:
		if (s->state == HSS_NOT_REGISTERED)
			s->scscf[0] = 0;
		break;
	default:
		code = ERROR_IN_ASSIGNMENT_TYPE;
	}
	int rc = answer(msg, code);
	if (!rc && !code) {
		rc |= add_str(*msg, a_user_name, s->impi);
		if (with_profile) {
			char xml[4096];
			int len = hss_user_data(s, xml, sizeof xml);
			rc |= len < 0 || add_os(*msg, a_user_data, xml, len);
		}
	}
	pthread_mutex_unlock(&g_lock);
	return rc ? -1 : send_answer(msg, what, code < 0 ? 5012 : code);
}

/* LIR (TS 29.228 6.1.4): which S-CSCF serves this IMPU (terminating routing at the I-CSCF) */
static int on_lir(struct msg **msg, struct avp *avp, struct session *sess, void *opaque, enum disp_action *act)
{
	char impu[HSS_ID_LEN], what[400];
	(void)avp; (void)sess; (void)opaque;
	*act = DISP_ACT_CONT;
	if (avp_str(*msg, a_public_identity, impu, sizeof impu) < 0) {
		if (answer(msg, -5005)) return -1;
		return send_answer(msg, "LIR without Public-Identity", 5005);
	}
	snprintf(what, sizeof what, "LIR %s", impu);
	pthread_mutex_lock(&g_lock);
	struct hss_sub *s = hss_db_by_impu(g_db, impu);
	int code = 0;
	if (!s)
		code = ERROR_USER_UNKNOWN;
	else if (s->state == HSS_NOT_REGISTERED)
		code = ERROR_IDENTITY_NOT_REGISTERED;
	int rc = answer(msg, code);
	if (!rc && !code)
		rc = add_str(*msg, a_server_name, s->scscf);
	if (!code)
		snprintf(what + strlen(what), sizeof what - strlen(what), " server=%s", s->scscf);
	pthread_mutex_unlock(&g_lock);
	return rc ? -1 : send_answer(msg, what, code);
}

/* RTA: log the S-CSCF's answer to our RTR */
static void on_rta(void *data, struct msg **ans)
{
	char *impu = data;
	uint32_t rc = 0;
	struct avp *a = find(*ans, a_result_code);
	struct avp_hdr *h;
	if (a && !fd_msg_avp_hdr(a, &h) && h->avp_value)
		rc = h->avp_value->u32;
	fprintf(stderr, "hss: RTA %s -> %u\n", impu, rc);
	free(impu);
	fd_msg_free(*ans);
	*ans = NULL;
}

int hss_cx_rtr(const char *impu, int reason_code, const char *reason_info)
{
	char impi[HSS_ID_LEN], host[HSS_ID_LEN], realm[HSS_ID_LEN];
	pthread_mutex_lock(&g_lock);
	struct hss_sub *s = hss_db_by_impu(g_db, impu);
	if (!s || s->state == HSS_NOT_REGISTERED || !s->scscf[0]) {
		pthread_mutex_unlock(&g_lock);
		fprintf(stderr, "hss: RTR %s: %s\n", impu, s ? "not registered" : "unknown IMPU");
		return -1;
	}
	/* the S-CSCF's Diameter identity is the host of its SIP URI (sip:scscf.ims.lab:6060) */
	const char *h = s->scscf + (strncmp(s->scscf, "sip:", 4) ? 0 : 4);
	size_t n = strcspn(h, ":;>");
	snprintf(host, sizeof host, "%.*s", (int)(n < sizeof host ? n : sizeof host - 1), h);
	snprintf(impi, sizeof impi, "%s", s->impi);
	const char *at = strchr(impi, '@');
	snprintf(realm, sizeof realm, "%s", at ? at + 1 : (char *)fd_g_config->cnf_diamrlm);
	s->state = HSS_NOT_REGISTERED; /* TS 29.228 6.1.3: the HSS de-registers; no SAR follows */
	s->scscf[0] = 0;
	pthread_mutex_unlock(&g_lock);

	struct msg *req = NULL;
	struct avp *g;
	int rc = fd_msg_new(c_rtr, MSGFL_ALLOC_ETEID, &req) ||
		 fd_msg_new_session(req, (os0_t)"hss", 3) ||
		 add_common(req) || fd_msg_add_origin(req, 0) ||
		 add_str(req, a_dest_host, host) || add_str(req, a_dest_realm, realm) ||
		 add_str(req, a_user_name, impi) || add_str(req, a_public_identity, impu) ||
		 fd_msg_avp_new(a_dereg_reason, 0, &g) || add_u32(g, a_reason_code, (uint32_t)reason_code) ||
		 add_str(g, a_reason_info, reason_info) || fd_msg_avp_add(req, MSG_BRW_LAST_CHILD, g);
	char *cb = strdup(impu);
	if (!rc)
		rc = fd_msg_send(&req, on_rta, cb);
	if (rc) {
		fprintf(stderr, "hss: RTR %s: cannot build or send it\n", impu);
		free(cb);
		if (req)
			fd_msg_free(req);
		return -1;
	}
	fprintf(stderr, "hss: RTR %s %s to %s reason=%d (%s)\n", impi, impu, host, reason_code, reason_info);
	return 0;
}

int hss_cx_init(struct hss_db *db, const char *default_scscf, int log_vectors)
{
	struct dict_object *uar, *mar, *sar, *lir;
	vendor_id_t vid = VENDOR_3GPP;
	application_id_t aid = APP_CX;
	g_db = db;
	g_default_scscf = default_scscf;
	g_log_vectors = log_vectors;
	if (fd_dict_search(DICT, DICT_VENDOR, VENDOR_BY_ID, &vid, &d_vendor, ENOENT)) {
		struct dict_vendor_data vd = { VENDOR_3GPP, "3GPP" };
		if (fd_dict_new(DICT, DICT_VENDOR, &vd, NULL, &d_vendor)) return -1;
	}
	if (fd_dict_search(DICT, DICT_APPLICATION, APPLICATION_BY_ID, &aid, &d_app, ENOENT)) {
		struct dict_application_data ad = { APP_CX, "3GPP Cx" };
		if (fd_dict_new(DICT, DICT_APPLICATION, &ad, d_vendor, &d_app)) return -1;
	}
	if (ensure_public_identity() ||
	    find_avp("User-Name", &a_user_name) || find_avp("Server-Name", &a_server_name) ||
	    find_avp("Server-Capabilities", &a_server_capabilities) ||
	    find_avp("Mandatory-Capability", &a_mandatory_cap) || find_avp("Optional-Capability", &a_optional_cap) ||
	    find_avp("SIP-Number-Auth-Items", &a_sip_number_auth_items) ||
	    find_avp("SIP-Auth-Data-Item", &a_sip_auth_data_item) || find_avp("SIP-Item-Number", &a_sip_item_number) ||
	    find_avp("SIP-Authentication-Scheme", &a_sip_auth_scheme) ||
	    find_avp("SIP-Authenticate", &a_sip_authenticate) || find_avp("SIP-Authorization", &a_sip_authorization) ||
	    find_avp("Confidentiality-Key", &a_ck) || find_avp("Integrity-Key", &a_ik) ||
	    find_avp("Server-Assignment-Type", &a_server_assignment_type) || find_avp("User-Data", &a_user_data) ||
	    find_avp("Experimental-Result", &a_experimental_result) ||
	    find_avp("Experimental-Result-Code", &a_experimental_result_code) || find_avp("Vendor-Id", &a_vendor_id) ||
	    find_avp("Auth-Session-State", &a_auth_session_state) ||
	    find_avp("Vendor-Specific-Application-Id", &a_vendor_specific_app_id) ||
	    find_avp("Auth-Application-Id", &a_auth_app_id) ||
	    find_avp("Destination-Host", &a_dest_host) || find_avp("Destination-Realm", &a_dest_realm) ||
	    find_avp("Result-Code", &a_result_code) ||
	    find_avp("Deregistration-Reason", &a_dereg_reason) || ensure_reason_code() ||
	    find_avp("Reason-Info", &a_reason_info) ||
	    find_avp("SIP-Digest-Authenticate", &a_sip_digest_authenticate) || find_avp("Digest-Realm", &a_digest_realm) ||
	    find_avp("Digest-QoP", &a_digest_qop) || find_avp("Digest-HA1", &a_digest_ha1))
		return -1;
	if (command(300, "User-Authorization-Request", "User-Authorization-Answer", &uar) ||
	    command(301, "Server-Assignment-Request", "Server-Assignment-Answer", &sar) ||
	    command(302, "Location-Info-Request", "Location-Info-Answer", &lir) ||
	    command(303, "Multimedia-Auth-Request", "Multimedia-Auth-Answer", &mar) ||
	    command(304, "Registration-Termination-Request", "Registration-Termination-Answer", &c_rtr))
		return -1;
	struct disp_when w = { .app = d_app };
	w.command = uar;
	if (fd_disp_register(on_uar, DISP_HOW_CC, &w, NULL, NULL)) return -1;
	w.command = mar;
	if (fd_disp_register(on_mar, DISP_HOW_CC, &w, NULL, NULL)) return -1;
	w.command = sar;
	if (fd_disp_register(on_sar, DISP_HOW_CC, &w, NULL, NULL)) return -1;
	w.command = lir;
	if (fd_disp_register(on_lir, DISP_HOW_CC, &w, NULL, NULL)) return -1;
	return fd_disp_app_support(d_app, d_vendor, 1, 0);
}

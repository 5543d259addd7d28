#include "subscribers.h"
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t errlen, const char *name, int line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "%s:%d: ", name, line);
	if (n < 0 || (size_t)n >= errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

int hss_hex(const char *s, uint8_t *out, size_t n)
{
	if (strlen(s) != 2 * n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		if (!isxdigit((unsigned char)s[2 * i]) || !isxdigit((unsigned char)s[2 * i + 1]))
			return -1;
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (uint8_t)v;
	}
	return 0;
}

void hss_tohex(const uint8_t *in, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", in[i]);
	out[2 * n] = 0;
}

static int valid_uri(const char *u)
{
	/* the identities go into the profile XML verbatim: no markup characters */
	return (!strncmp(u, "sip:", 4) || !strncmp(u, "sips:", 5) || !strncmp(u, "tel:", 4)) && !strpbrk(u, "<>&\"'");
}

/* One line: IMPI IMPU[,IMPU...] K OPc AMF SQN [aka|tna|digest PASSWORD] */
static int parse_line(char *line, const char *name, int ln, struct hss_sub *s, char *err, size_t errlen)
{
	char *f[8];
	int nf = 0;
	for (char *tok = strtok(line, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
		if (nf == 8)
			return fail(err, errlen, name, ln, "too many columns (want: IMPI IMPU[,IMPU...] K OPc AMF SQN [aka|tna|digest PASSWORD])");
		f[nf++] = tok;
	}
	if (nf < 6)
		return fail(err, errlen, name, ln, "%d columns, want 6 to 8: IMPI IMPU[,IMPU...] K OPc AMF SQN [aka|tna|digest PASSWORD]", nf);
	memset(s, 0, sizeof(*s));
	if (nf >= 7) {
		if (!strcmp(f[6], "tna"))
			s->scheme = HSS_SCHEME_TNA;
		else if (!strcmp(f[6], "digest"))
			s->scheme = HSS_SCHEME_DIGEST;
		else if (strcmp(f[6], "aka"))
			return fail(err, errlen, name, ln, "scheme '%s': aka, tna or digest", f[6]);
	}
	if (s->scheme == HSS_SCHEME_DIGEST) {
		if (nf != 8)
			return fail(err, errlen, name, ln, "a digest line ends in its SIP password: ... digest PASSWORD");
		if (strlen(f[7]) >= sizeof s->password)
			return fail(err, errlen, name, ln, "the SIP password is longer than %zu characters", sizeof s->password - 1);
		strcpy(s->password, f[7]);
	} else if (nf == 8) {
		return fail(err, errlen, name, ln, "too many columns (want: IMPI IMPU[,IMPU...] K OPc AMF SQN [aka|tna|digest PASSWORD])");
	}
	if (strlen(f[0]) >= HSS_ID_LEN || !strchr(f[0], '@') || valid_uri(f[0]))
		return fail(err, errlen, name, ln, "IMPI '%s' is not of the form user@realm", f[0]);
	strcpy(s->impi, f[0]);
	for (char *save = NULL, *u = strtok_r(f[1], ",", &save); u; u = strtok_r(NULL, ",", &save)) {
		if (s->n_impus == HSS_MAX_IMPUS)
			return fail(err, errlen, name, ln, "more than %d IMPUs", HSS_MAX_IMPUS);
		if (strlen(u) >= HSS_ID_LEN || !valid_uri(u))
			return fail(err, errlen, name, ln, "IMPU '%s' is not a sip:, sips: or tel: URI", u);
		strcpy(s->impus[s->n_impus++], u);
	}
	if (!s->n_impus)
		return fail(err, errlen, name, ln, "no IMPU");
	if (hss_hex(f[2], s->k, 16))
		return fail(err, errlen, name, ln, "K must be 32 hex digits");
	if (hss_hex(f[3], s->opc, 16))
		return fail(err, errlen, name, ln, "OPc must be 32 hex digits");
	if (hss_hex(f[4], s->amf, 2))
		return fail(err, errlen, name, ln, "AMF must be 4 hex digits");
	uint8_t sq[6];
	if (hss_hex(f[5], sq, 6))
		return fail(err, errlen, name, ln, "SQN must be 12 hex digits (48 bits)");
	for (int i = 0; i < 6; i++)
		s->sqn = (s->sqn << 8) | sq[i];
	return 0;
}

int hss_db_parse(const char *text, const char *name, struct hss_db *db, char *err, size_t errlen)
{
	char *copy = strdup(text);
	int ln = 0, rc = 0;
	db->subs = NULL;
	db->n = 0;
	if (!copy)
		return fail(err, errlen, name, 0, "out of memory");
	/* strtok_r on '\n' would skip empty lines and break line numbers: walk by hand */
	for (char *line = copy, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		ln++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		char *p = line;
		while (*p && isspace((unsigned char)*p))
			p++;
		if (!*p)
			continue;
		struct hss_sub s;
		if (parse_line(p, name, ln, &s, err, errlen)) {
			rc = -1;
			break;
		}
		for (size_t i = 0; i < db->n; i++) {
			if (!strcmp(db->subs[i].impi, s.impi)) {
				rc = fail(err, errlen, name, ln, "IMPI %s listed twice", s.impi);
				break;
			}
			for (int a = 0; a < s.n_impus && !rc; a++)
				if (hss_sub_has_impu(&db->subs[i], s.impus[a]))
					rc = fail(err, errlen, name, ln, "IMPU %s already belongs to %s", s.impus[a], db->subs[i].impi);
		}
		if (rc)
			break;
		struct hss_sub *n = realloc(db->subs, (db->n + 1) * sizeof(*n));
		if (!n) {
			rc = fail(err, errlen, name, ln, "out of memory");
			break;
		}
		db->subs = n;
		db->subs[db->n++] = s;
	}
	free(copy);
	if (!rc && !db->n)
		rc = fail(err, errlen, name, ln, "no subscribers");
	if (rc)
		hss_db_free(db);
	return rc;
}

int hss_db_load(const char *path, struct hss_db *db, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return fail(err, errlen, path, 0, "%s", strerror(errno));
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	char chunk[4096];
	size_t r;
	while ((r = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, r, m);
	fclose(f);
	fclose(m);
	int rc = hss_db_parse(buf, path, db, err, errlen);
	free(buf);
	return rc;
}

void hss_db_free(struct hss_db *db)
{
	free(db->subs);
	db->subs = NULL;
	db->n = 0;
}

struct hss_sub *hss_db_by_impi(struct hss_db *db, const char *impi)
{
	for (size_t i = 0; i < db->n; i++)
		if (!strcmp(db->subs[i].impi, impi))
			return &db->subs[i];
	return NULL;
}

int hss_sub_has_impu(const struct hss_sub *s, const char *impu)
{
	for (int i = 0; i < s->n_impus; i++)
		if (!strcmp(s->impus[i], impu))
			return 1;
	return 0;
}

struct hss_sub *hss_db_by_impu(struct hss_db *db, const char *impu)
{
	for (size_t i = 0; i < db->n; i++)
		if (hss_sub_has_impu(&db->subs[i], impu))
			return &db->subs[i];
	return NULL;
}

int hss_user_data(const struct hss_sub *s, char *out, size_t outlen)
{
	size_t n = 0;
	int w;
#define PUT(...) do { \
		w = snprintf(out + n, outlen - n, __VA_ARGS__); \
		if (w < 0 || (size_t)w >= outlen - n) \
			return -1; \
		n += w; \
	} while (0)
	PUT("<?xml version=\"1.0\" encoding=\"UTF-8\"?><IMSSubscription><PrivateID>%s</PrivateID><ServiceProfile>", s->impi);
	for (int i = 0; i < s->n_impus; i++)
		PUT("<PublicIdentity><BarringIndication>0</BarringIndication><Identity>%s</Identity></PublicIdentity>", s->impus[i]);
	PUT("</ServiceProfile></IMSSubscription>");
#undef PUT
	return (int)n;
}

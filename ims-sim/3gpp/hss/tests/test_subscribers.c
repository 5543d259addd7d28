/* Subscriber table parsing, lookups and the SAA user profile. */
#include "subscribers.h"
#include <stdio.h>
#include <string.h>

static int failures, checks;
#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; printf("FAIL %s:%d: ", __FILE__, __LINE__); \
	printf(__VA_ARGS__); printf("\n"); } } while (0)

#define K "465b5ce8b199b49faa5f0a2ee238a6bc"
#define OPC "cd63cb71954a9f4e48a5994e37a02baf"

static void bad(const char *text, const char *want)
{
	struct hss_db db;
	char err[256] = "";
	int rc = hss_db_parse(text, "t", &db, err, sizeof err);
	CHECK(rc == -1 && strstr(err, want), "want error containing '%s', got rc=%d '%s'", want, rc, err);
}

int main(void)
{
	struct hss_db db;
	char err[256] = "";
	const char *good =
		"# IMPI IMPU K OPc AMF SQN\n"
		"\n"
		"alice@ims.lab sip:alice@ims.lab,tel:+4910 " K " " OPC " 8000 000000000020   # trailing comment\n"
		"\tbob@ims.lab  sip:bob@ims.lab " K " " OPC " 8000 ffffffffff00\n"
		"web@ims.lab sip:web@ims.lab " K " " OPC " 8000 000000000000 tna\n"
		"aka@ims.lab sip:aka@ims.lab " K " " OPC " 8000 000000000000 aka\n"
		"dig@ims.lab sip:dig@ims.lab " K " " OPC " 8000 000000000000 digest dig-sip-pw\n";
	CHECK(hss_db_parse(good, "t", &db, err, sizeof err) == 0, "good table: %s", err);
	CHECK(db.n == 5, "5 subscribers, got %zu", db.n);
	CHECK(hss_db_by_impi(&db, "dig@ims.lab") && hss_db_by_impi(&db, "dig@ims.lab")->scheme == HSS_SCHEME_DIGEST &&
	      !strcmp(hss_db_by_impi(&db, "dig@ims.lab")->password, "dig-sip-pw"), "dig's scheme is digest, with its password");
	CHECK(hss_db_by_impi(&db, "web@ims.lab") && hss_db_by_impi(&db, "web@ims.lab")->scheme == HSS_SCHEME_TNA,
	      "web's scheme is tna");
	CHECK(hss_db_by_impi(&db, "aka@ims.lab") && hss_db_by_impi(&db, "aka@ims.lab")->scheme == HSS_SCHEME_AKA,
	      "aka's scheme is aka");
	struct hss_sub *a = hss_db_by_impi(&db, "alice@ims.lab");
	CHECK(a && a->n_impus == 2 && !strcmp(a->impus[1], "tel:+4910"), "alice has 2 IMPUs");
	CHECK(a && a->scheme == HSS_SCHEME_AKA, "no 7th column: aka");
	CHECK(a && a->sqn == 0x20 && a->amf[0] == 0x80 && a->amf[1] == 0 && a->k[0] == 0x46 && a->opc[15] == 0xaf,
	      "alice's credentials");
	CHECK(hss_db_by_impu(&db, "tel:+4910") == a, "IMPU lookup");
	CHECK(hss_db_by_impu(&db, "sip:carol@ims.lab") == NULL, "unknown IMPU");
	CHECK(hss_db_by_impi(&db, "sip:alice@ims.lab") == NULL, "an IMPU is not an IMPI");
	struct hss_sub *b = hss_db_by_impi(&db, "bob@ims.lab");
	CHECK(b && b->sqn == 0xffffffffff00ULL, "bob's 48-bit SQN");
	CHECK(!hss_sub_has_impu(b, "sip:alice@ims.lab"), "bob does not own alice's IMPU");
	char xml[2048];
	int n = a ? hss_user_data(a, xml, sizeof xml) : -1;
	CHECK(n > 0 && strstr(xml, "<PrivateID>alice@ims.lab</PrivateID>") &&
	      strstr(xml, "<Identity>sip:alice@ims.lab</Identity>") && strstr(xml, "<Identity>tel:+4910</Identity>"),
	      "user data XML: %s", xml);
	CHECK(a && hss_user_data(a, xml, 40) == -1, "user data does not overflow a short buffer");
	hss_db_free(&db);

	bad("alice@ims.lab sip:alice@ims.lab " K " " OPC " 8000\n", "t:1: 5 columns, want 6 to 8");
	bad("\n\nalice@ims.lab sip:alice@ims.lab " K " " OPC " 8000 000000000020 tna x\n", "t:3: too many columns");
	bad("alice@ims.lab sip:alice@ims.lab " K " " OPC " 8000 000000000020 x\n", "t:1: scheme 'x': aka, tna or digest");
	bad("alice@ims.lab sip:alice@ims.lab " K " " OPC " 8000 000000000020 digest\n", "t:1: a digest line ends in its SIP password");
	bad("alice@ims.lab sip:alice@ims.lab " K " " OPC " 8000 000000000020 digest pw x\n", "t:1: too many columns");
	bad("sip:alice@ims.lab sip:alice@ims.lab " K " " OPC " 8000 000000000020\n", "IMPI 'sip:alice@ims.lab'");
	bad("alice@ims.lab alice@ims.lab " K " " OPC " 8000 000000000020\n", "IMPU 'alice@ims.lab' is not");
	bad("alice@ims.lab sip:alice@ims.lab 465b " OPC " 8000 000000000020\n", "K must be 32 hex");
	bad("alice@ims.lab sip:alice@ims.lab " K " " K "zz 8000 000000000020\n", "OPc must be 32 hex");
	bad("alice@ims.lab sip:alice@ims.lab " K " " OPC " 80 000000000020\n", "AMF must be 4 hex");
	bad("alice@ims.lab sip:alice@ims.lab " K " " OPC " 8000 20\n", "SQN must be 12 hex");
	bad("a@ims.lab sip:a@ims.lab " K " " OPC " 8000 000000000020\na@ims.lab sip:b@ims.lab " K " " OPC " 8000 000000000020\n",
	    "t:2: IMPI a@ims.lab listed twice");
	bad("a@ims.lab sip:a@ims.lab " K " " OPC " 8000 000000000020\nb@ims.lab sip:a@ims.lab " K " " OPC " 8000 000000000020\n",
	    "IMPU sip:a@ims.lab already belongs to a@ims.lab");
	bad("# nothing\n", "no subscribers");
	bad("a@ims.lab sip:<a>@ims.lab " K " " OPC " 8000 000000000020\n", "not a sip:");
	CHECK(hss_db_load("/nonexistent/table", &db, err, sizeof err) == -1 && strstr(err, "No such file"),
	      "missing file: %s", err);
	printf("%d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}

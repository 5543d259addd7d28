/* hss: the lab's HSS. A freeDiameter node (libfdcore) that answers Cx UAR/MAR/SAR/LIR from a
 * subscriber table file, with Milenage AKA vectors from libosmocore. */
#include "cx.h"
#include <freeDiameter/freeDiameter-host.h>
#include <freeDiameter/libfdcore.h>
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Seconds the shutdown may wait for the Diameter peers' disconnect answers (DPA) before the HSS exits anyway. */
#define SHUTDOWN_GRACE_S 2

static void *shutdown_watchdog(void *arg)
{
	(void)arg;
	sleep(SHUTDOWN_GRACE_S);
	fprintf(stderr, "hss: the Diameter peers did not close within %d s (stopped with the core); exiting\n", SHUTDOWN_GRACE_S);
	fflush(stderr);
	_exit(0);
	return NULL;
}

/* The control FIFO: one command per line (opened read-write, so it never sees end of file). */
static void *control_loop(void *arg)
{
	const char *path = arg;
	FILE *f = fopen(path, "r+");
	if (!f) {
		fprintf(stderr, "hss: cannot open the control FIFO %s: %s\n", path, strerror(errno));
		return NULL;
	}
	char line[512], impu[300];
	while (fgets(line, sizeof line, f)) {
		int reason = 0;
		if (sscanf(line, "rtr %299s %d", impu, &reason) >= 1)
			hss_cx_rtr(impu, reason, "administrative de-registration (lab control)");
		else if (line[0] != '\n')
			fprintf(stderr, "hss: control: unknown command '%.*s' (want: rtr <IMPU> [reason-code])\n",
				(int)strcspn(line, "\n"), line);
	}
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: hss -c <freeDiameter.conf> -s <subscribers.txt> [-l <ipv4>] [--scscf <sip-uri>] [--log-vectors] [--control <fifo>] [--check]\n"
		"  -c, --config       freeDiameter configuration (Identity, Realm, peers, dict_dcca_3gpp.fdx; see start-hss.sh)\n"
		"  -s, --subscribers  table: IMPI IMPU[,IMPU...] K OPc AMF SQN per line, '#' comments\n"
		"  -l, --listen       IPv4 address to serve on (loopback allowed; freeDiameter's ListenOn drops 127/8)\n"
		"      --scscf        S-CSCF URI put into UAAs of unassigned users (default: Server-Capabilities)\n"
		"      --log-vectors  also log XRES of each vector (lab use)\n"
		"      --control      a FIFO read for commands, one per line: 'rtr <IMPU> [reason-code]' sends a\n"
		"                     Registration-Termination-Request to the S-CSCF serving IMPU (network de-registration)\n"
		"      --check        only parse the subscriber table and exit\n");
}

int main(int argc, char **argv)
{
	const char *conf = NULL, *subs = NULL, *scscf = NULL, *listen_on = NULL, *control = NULL;
	int log_vectors = 0, check = 0, c;
	static struct option opts[] = {
		{ "config", required_argument, 0, 'c' }, { "listen", required_argument, 0, 'l' }, { "subscribers", required_argument, 0, 's' },
		{ "scscf", required_argument, 0, 'S' }, { "log-vectors", no_argument, 0, 'V' },
		{ "check", no_argument, 0, 'C' }, { "control", required_argument, 0, 'F' }, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
	while ((c = getopt_long(argc, argv, "c:s:l:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': conf = optarg; break;
		case 's': subs = optarg; break;
		case 'l': listen_on = optarg; break;
		case 'S': scscf = optarg; break;
		case 'V': log_vectors = 1; break;
		case 'C': check = 1; break;
		case 'F': control = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!subs || (!conf && !check) || optind != argc) {
		usage(stderr);
		return 2;
	}
	static struct hss_db db;
	char err[512];
	if (hss_db_load(subs, &db, err, sizeof err)) {
		fprintf(stderr, "hss: %s\n", err);
		return 2;
	}
	fprintf(stderr, "hss: %zu subscribers from %s\n", db.n, subs);
	if (check)
		return 0;

	/* the signal mask is inherited by freeDiameter's threads: only this thread takes SIGTERM/INT */
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);

	if (fd_core_initialize()) {
		fprintf(stderr, "hss: freeDiameter initialisation failed\n");
		return 1;
	}
	if (fd_core_parseconf(conf)) {
		fprintf(stderr, "hss: cannot use freeDiameter configuration %s (see above)\n", conf);
		return 2;
	}
	if (listen_on) {
		/* ListenOn in the configuration goes through an address filter that drops loopback
		 * addresses; the lab runs on loopback only, so add the endpoint past that filter */
		struct sockaddr_in sin = { .sin_family = AF_INET };
		if (inet_pton(AF_INET, listen_on, &sin.sin_addr) != 1) {
			fprintf(stderr, "hss: --listen wants an IPv4 address, not '%s'\n", listen_on);
			return 2;
		}
		if (fd_ep_add_merge(&fd_g_config->cnf_endpoints, (sSA *)&sin, sizeof sin, EP_FL_CONF | EP_ACCEPTALL)) {
			fprintf(stderr, "hss: cannot add the endpoint %s\n", listen_on);
			return 1;
		}
	}
	if (hss_cx_init(&db, scscf, log_vectors)) {
		fprintf(stderr, "hss: cannot set up the Cx application\n");
		return 1;
	}
	if (fd_core_start()) {
		fprintf(stderr, "hss: freeDiameter did not start\n");
		return 1;
	}
	fd_core_waitstartcomplete();
	pthread_t ctl;
	if (control && pthread_create(&ctl, NULL, control_loop, (void *)control)) {
		fprintf(stderr, "hss: cannot start the control thread\n");
		return 1;
	}
	fprintf(stderr, "hss: ready (Cx, application 16777216)%s%s\n", control ? "; control FIFO " : "", control ? control : "");
	int sig = 0;
	sigwait(&sigs, &sig);
	fprintf(stderr, "hss: signal %d, shutting down\n", sig);
	/* freeDiameter closes each peer with DPR/DPA and waits up to 16 s for the answers; the core's
	 * CSCFs get the same SIGTERM and are gone by then, so the wait is bounded here */
	pthread_t watchdog;
	if (pthread_create(&watchdog, NULL, shutdown_watchdog, NULL) == 0)
		pthread_detach(watchdog);
	fd_core_shutdown();
	fd_core_wait_shutdown_complete();
	hss_db_free(&db);
	return 0;
}

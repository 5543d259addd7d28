// linkdelay — the delay (and jitter) half of the lab's link impairments (docs/scenarios.md).
// This kernel has no sch_netem (CONFIG_NET_SCH_NETEM is not set), so the per-packet delay that netem
// would add is done here: iptables hands every packet of one direction of the browser's link to
// NFQUEUE queue N (libnetfilter_queue), and this process gives each packet its verdict (ACCEPT) only
// when its time has come: arrival + delay + uniform(-jitter, +jitter), in time order as netem's tfifo
// does (so a large jitter reorders, as with netem). Random loss is here too (verdict DROP with
// probability loss %): unlike an iptables DROP in OUTPUT, which fails the sender's sendmsg (EPERM), so
// the sender knows (5 % set showed as 0.2-0.4 % missing at the relay), a queued packet is already "sent"
// when it is dropped, as on a real link. Rate limits are tc tbf after it (harness/kit/link.mjs sets everything up).
//   linkdelay --queue N [--delay MS] [--jitter MS] [--loss PCT] [--seed S]
// Runs until SIGTERM/SIGINT, then lets every held packet go and prints one JSON line of counters.
#include <arpa/inet.h>
#include <errno.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct { uint64_t due_us; uint32_t id; } held_t;

static held_t *heap;
static size_t heap_len, heap_cap, heap_max;
static uint64_t n_packets, n_released, n_dropped;
static double loss_p;
static double delay_us, jitter_us;
static volatile sig_atomic_t stop;

static uint64_t now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void heap_push(held_t h) {
  if (heap_len == heap_cap) {
    heap_cap = heap_cap ? heap_cap * 2 : 1024;
    heap = realloc(heap, heap_cap * sizeof *heap);
    if (!heap) { perror("linkdelay: realloc"); exit(1); }
  }
  size_t i = heap_len++;
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (heap[p].due_us <= h.due_us) break;
    heap[i] = heap[p];
    i = p;
  }
  heap[i] = h;
  if (heap_len > heap_max) heap_max = heap_len;
}

static held_t heap_pop(void) {
  held_t top = heap[0], last = heap[--heap_len];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= heap_len) break;
    if (c + 1 < heap_len && heap[c + 1].due_us < heap[c].due_us) c++;
    if (last.due_us <= heap[c].due_us) break;
    heap[i] = heap[c];
    i = c;
  }
  if (heap_len) heap[i] = last;
  return top;
}

static int on_packet(struct nfq_q_handle *qh, struct nfgenmsg *msg, struct nfq_data *nfa, void *data) {
  (void)msg; (void)data;
  struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(nfa);
  if (!ph) return 0;
  n_packets++;
  if (loss_p > 0 && drand48() < loss_p) {
    nfq_set_verdict(qh, ntohl(ph->packet_id), NF_DROP, 0, NULL);
    n_dropped++;
    return 0;
  }
  double d = delay_us;
  if (jitter_us > 0) d += (2.0 * drand48() - 1.0) * jitter_us;
  if (d < 0) d = 0;
  heap_push((held_t){ now_us() + (uint64_t)d, ntohl(ph->packet_id) });
  return 0;
}

static void release_due(struct nfq_q_handle *qh, uint64_t t) {
  while (heap_len && heap[0].due_us <= t) {
    held_t h = heap_pop();
    nfq_set_verdict(qh, h.id, NF_ACCEPT, 0, NULL);
    n_released++;
  }
}

static void on_signal(int s) { (void)s; stop = 1; }

static void usage(void) {
  fprintf(stderr, "usage: linkdelay --queue N [--delay MS] [--jitter MS] [--loss PCT] [--seed S]\n");
  exit(2);
}

int main(int argc, char **argv) {
  long queue = -1, seed = 1;
  double delay_ms = 0, jitter_ms = 0, loss_pct = 0;
  for (int i = 1; i < argc; i++) {
    if (i + 1 >= argc) usage();
    char *end;
    if (!strcmp(argv[i], "--queue")) queue = strtol(argv[++i], &end, 10);
    else if (!strcmp(argv[i], "--delay")) delay_ms = strtod(argv[++i], &end);
    else if (!strcmp(argv[i], "--jitter")) jitter_ms = strtod(argv[++i], &end);
    else if (!strcmp(argv[i], "--loss")) loss_pct = strtod(argv[++i], &end);
    else if (!strcmp(argv[i], "--seed")) seed = strtol(argv[++i], &end, 10);
    else usage();
    if (*end) usage();
  }
  if (queue < 0 || queue > 65535 || delay_ms < 0 || jitter_ms < 0 || delay_ms > 60000 || jitter_ms > 60000 || loss_pct < 0 || loss_pct > 100) usage();
  delay_us = delay_ms * 1000.0;
  jitter_us = jitter_ms * 1000.0;
  loss_p = loss_pct / 100.0;
  srand48(seed);

  struct nfq_handle *h = nfq_open();
  if (!h) { fprintf(stderr, "linkdelay: nfq_open: %s\n", strerror(errno)); return 1; }
  struct nfq_q_handle *qh = nfq_create_queue(h, (uint16_t)queue, on_packet, NULL);
  if (!qh) { fprintf(stderr, "linkdelay: cannot bind NFQUEUE %ld: %s\n", queue, strerror(errno)); return 1; }
  // only the packet id is needed: no payload copied to user space
  if (nfq_set_mode(qh, NFQNL_COPY_META, 0) < 0) { fprintf(stderr, "linkdelay: nfq_set_mode failed\n"); return 1; }
  nfq_set_queue_maxlen(qh, 65536);
  int fd = nfq_fd(h);
  struct sigaction sa = { .sa_handler = on_signal };
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  printf("linkdelay: queue %ld, delay %.1f ms, jitter %.1f ms, loss %.2f %%\n", queue, delay_ms, jitter_ms, loss_pct);
  fflush(stdout);

  char buf[65536] __attribute__((aligned));
  while (!stop) {
    uint64_t t = now_us();
    release_due(qh, t);
    int timeout = -1;
    if (heap_len) {
      uint64_t wait = heap[0].due_us > t ? heap[0].due_us - t : 0;
      timeout = (int)((wait + 999) / 1000);   // poll's resolution is 1 ms
    }
    struct pollfd p = { .fd = fd, .events = POLLIN };
    int r = poll(&p, 1, timeout);
    if (r < 0 && errno != EINTR) { perror("linkdelay: poll"); break; }
    if (r > 0) {
      for (;;) {   // drain what is there without blocking
        ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n < 0) {
          if (errno == ENOBUFS) { fprintf(stderr, "linkdelay: netlink buffer overrun (packets dropped by the kernel)\n"); continue; }
          break;
        }
        nfq_handle_packet(h, buf, (int)n);
      }
    }
  }
  release_due(qh, UINT64_MAX);
  printf("{\"queue\":%ld,\"delay_ms\":%.3f,\"jitter_ms\":%.3f,\"loss_pct\":%.3f,\"packets\":%llu,\"released\":%llu,\"dropped\":%llu,\"max_held\":%zu}\n",
         queue, delay_ms, jitter_ms, loss_pct, (unsigned long long)n_packets, (unsigned long long)n_released, (unsigned long long)n_dropped, heap_max);
  nfq_destroy_queue(qh);
  nfq_close(h);
  return 0;
}

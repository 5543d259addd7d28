// delaymeter CLI: relay delay/loss/dup/reorder per direction from a capture file or a live interface.
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <memory>
#include <string>

#include "analyzer.h"
#include "report.h"

namespace {

constexpr int kExitBadInput = 2;

const char* kUsage =
    "usage: delaymeter [options] CAPTURE.pcap[ng]\n"
    "       delaymeter [options] --live IFACE [--seconds N]\n"
    "  --relay-addr A      relay IPv4 address (default 127.0.0.1)\n"
    "  --relay-ports LO-HI relay media ports (default 30000-30999)\n"
    "  --ims-ports LO-HI   far-end ports that are IMS; packets to them are to_ims (default 6000-6299)\n"
    "  --map-ssrc IN:OUT   the relay rewrites SSRC IN to OUT (hex 0x.. or decimal); repeatable\n"
"  --call-ports FILE   transcoded streams: rtpengine's two ports per call, 'BROWSER_PORT IMS_PORT' a line;\n"
    "                      the re-encoded stream's new SSRC is mapped back to the one it came from\n"
    "  --window-ms MS      max in->out gap for a pair; older in copies are lost (default 1000)\n"
    "  --json              JSON on stdout instead of the table\n"
    "  --csv FILE          per-packet rows: t_in,direction,ssrc,seq,delay_us\n"
    "  --live IFACE        capture live (filter 'udp portrange <relay-ports>') instead of a file\n"
    "  --seconds N         live capture length (default: until SIGINT/SIGTERM)\n"
    "exit: 0 report written, 2 bad usage or input (missing/unreadable file, no RTP on relay ports)\n";

volatile std::sig_atomic_t g_stop = 0;
void onSignal(int) { g_stop = 1; }

[[noreturn]] void fail(const std::string& msg) {
  std::cerr << "delaymeter: " << msg << "\n";
  std::exit(kExitBadInput);
}

bool parseU32(const std::string& s, uint32_t& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s.c_str(), &end, 0);  // base 0: accepts 0x.. and decimal
  if (*end != '\0' || errno != 0 || v > 0xffffffffULL || s[0] == '-') return false;
  out = uint32_t(v);
  return true;
}

struct Options {
  std::string input, live_iface, csv_path;
  bool json = false, call_ports = false;
  double seconds = 0;  // 0 = until signalled
  uint32_t relay_addr = 0x7f000001;
  dm::PortRange relay_ports{30000, 30999}, ims_ports{6000, 6299};
  dm::MatcherConfig matcher;
};

Options parseArgs(int argc, char** argv) {
  Options o;
  auto value = [&](int& i) -> std::string {
    if (i + 1 >= argc) fail(std::string(argv[i]) + " needs a value (see --help)");
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (a == "--json") {
      o.json = true;
    } else if (a == "--csv") {
      o.csv_path = value(i);
    } else if (a == "--relay-addr") {
      if (!dm::parseIpv4(value(i), o.relay_addr)) fail("--relay-addr: not an IPv4 address: " + std::string(argv[i]));
    } else if (a == "--relay-ports") {
      if (!dm::parsePortRange(value(i), o.relay_ports)) fail("--relay-ports: expected LO-HI, got " + std::string(argv[i]));
    } else if (a == "--ims-ports") {
      if (!dm::parsePortRange(value(i), o.ims_ports)) fail("--ims-ports: expected LO-HI, got " + std::string(argv[i]));
    } else if (a == "--map-ssrc") {
      std::string v = value(i);
      auto colon = v.find(':');
      uint32_t in = 0, out = 0;
      if (colon == std::string::npos || !parseU32(v.substr(0, colon), in) || !parseU32(v.substr(colon + 1), out))
        fail("--map-ssrc: expected IN:OUT, got " + v);
      o.matcher.out_to_in_ssrc[out] = in;
    } else if (a == "--call-ports") {
      std::string err;
      if (!dm::readCallPorts(value(i), o.matcher.call_ports, err)) fail(err);
      o.call_ports = true;
    } else if (a == "--window-ms") {
      char* end = nullptr;
      std::string v = value(i);
      double ms = std::strtod(v.c_str(), &end);
      if (*end != '\0' || !(ms > 0)) fail("--window-ms: expected a positive number, got " + v);
      o.matcher.window_ns = int64_t(ms * 1e6);
    } else if (a == "--live") {
      o.live_iface = value(i);
    } else if (a == "--seconds") {
      char* end = nullptr;
      std::string v = value(i);
      o.seconds = std::strtod(v.c_str(), &end);
      if (*end != '\0' || !(o.seconds > 0)) fail("--seconds: expected a positive number, got " + v);
    } else if (!a.empty() && a[0] == '-') {
      fail("unknown option " + a + " (see --help)");
    } else if (o.input.empty()) {
      o.input = a;
    } else {
      fail("only one capture file, got also " + a);
    }
  }
  if (o.input.empty() == o.live_iface.empty()) fail("give one capture file or --live IFACE (see --help)");
  if (o.seconds > 0 && o.live_iface.empty()) fail("--seconds only applies to --live");
  return o;
}

double monotonicSeconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt = parseArgs(argc, argv);
  std::string error;
  std::unique_ptr<dm::PacketSource> src;
  dm::ReportContext ctx;
  if (opt.live_iface.empty()) {
    src = dm::PacketSource::openFile(opt.input, error);
    ctx.source = opt.input;
  } else {
    std::string bpf = "udp portrange " + std::to_string(opt.relay_ports.lo) + "-" + std::to_string(opt.relay_ports.hi);
    src = dm::PacketSource::openLive(opt.live_iface, bpf, error);
    ctx.source = "live:" + opt.live_iface;
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
  }
  if (!src) fail(error);
  ctx.link_type = src->linkTypeName();
  ctx.call_ports = opt.call_ports;

  dm::Analyzer analyzer(dm::Classifier(opt.relay_addr, opt.relay_ports, opt.ims_ports), opt.matcher);
  const double deadline = opt.seconds > 0 ? monotonicSeconds() + opt.seconds : 0;
  dm::UdpDatagram d;
  for (;;) {
    if (!opt.live_iface.empty() && (g_stop || (deadline > 0 && monotonicSeconds() >= deadline))) break;
    auto st = src->next(d);
    if (st == dm::PacketSource::Status::Datagram) analyzer.feed(d);
    else if (st == dm::PacketSource::Status::End) break;
    else if (st == dm::PacketSource::Status::Error) fail(ctx.source + ": " + src->error());
  }
  ctx.frames = src->frames();
  ctx.counters = analyzer.counters();
  if (ctx.counters.rtp_in + ctx.counters.rtp_out == 0)
    fail(ctx.source + ": no RTP on relay ports " + std::to_string(opt.relay_ports.lo) + "-" +
         std::to_string(opt.relay_ports.hi) + " (" + std::to_string(ctx.frames) + " frames, " +
         std::to_string(ctx.counters.udp) + " UDP)");

  dm::MatchResult result = analyzer.finish();
  if (!opt.csv_path.empty() && !dm::writeCsv(opt.csv_path, result, error)) fail(error);
  if (opt.json) dm::writeJson(std::cout, ctx, result);
  else dm::writeTable(std::cout, ctx, result);
  return 0;
}

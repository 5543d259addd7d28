// datachannel: the data-channel endpoint of the gateway's media path (TS 23.334 §5.20.2, the
// eIMS-AGW role): WebRTC data channels on the browser leg (ICE-lite + DTLS + SCTP) relayed to
// "UDP/DTLS/SCTP webrtc-datachannel" media on the IMS leg (RFC 8841/8864), driven by the gateway over
// a UDP control protocol in rtpengine's ng style. See docs/datachannel.md.
#include <arpa/inet.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "endpoint.h"
#include "lab_addresses.h"

namespace {

volatile sig_atomic_t gStop = 0;

void usage(const char* why) {
  if (why) std::fprintf(stderr, "datachannel: %s\n", why);
  std::fprintf(stderr,
               "usage: datachannel [--listen ADDR:PORT] [--browser-addr ADDR] [--ims-addr ADDR]\n"
               "                   [--port-min N] [--port-max N] [--max-calls N] [--max-message-size N]\n"
               "  --listen            the control protocol's UDP address (default " LAB_DATACHANNEL_CTL ")\n"
               "  --browser-addr      the browser leg's media address (default 127.0.0.1)\n"
               "  --ims-addr          the IMS leg's media address (default 127.0.0.1)\n"
               "  --port-min/max      the UDP ports of both legs (default " LAB_DATACHANNEL_PORT_MIN "-" LAB_DATACHANNEL_PORT_MAX ")\n"
               "  --max-calls         sessions at most (default 100)\n"
               "  --max-message-size  our a=max-message-size (default 262144)\n");
  std::exit(2);
}

bool parsePort(const char* s, int* out) {
  char* end = nullptr;
  long v = std::strtol(s, &end, 10);
  if (!*s || *end || v < 1 || v > 65535) return false;
  *out = static_cast<int>(v);
  return true;
}

class ControlSocket : public lg::EventLoop::Handler {
 public:
  ControlSocket(int fd, dc::Control& c) : fd_(fd), control_(c) {}
  void onReadable() override {
    char buf[65536];
    for (;;) {
      sockaddr_in from{};
      socklen_t fl = sizeof from;
      ssize_t n = recvfrom(fd_, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &fl);
      if (n < 0) return;
      std::string reply = control_.handle(std::string(buf, static_cast<size_t>(n)));
      if (!reply.empty()) sendto(fd_, reply.data(), reply.size(), 0, reinterpret_cast<sockaddr*>(&from), fl);
    }
  }

 private:
  int fd_;
  dc::Control& control_;
};

}  // namespace

int main(int argc, char** argv) {
  std::string listen = LAB_DATACHANNEL_CTL;
  dc::MediaConfig cfg;
  cfg.portMin = std::atoi(LAB_DATACHANNEL_PORT_MIN);
  cfg.portMax = std::atoi(LAB_DATACHANNEL_PORT_MAX);
  size_t maxCalls = 100;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() -> const char* {
      if (i + 1 >= argc) usage((a + " needs a value").c_str());
      return argv[++i];
    };
    if (a == "--listen") listen = val();
    else if (a == "--browser-addr") cfg.browserAddr = val();
    else if (a == "--ims-addr") cfg.imsAddr = val();
    else if (a == "--port-min") { if (!parsePort(val(), &cfg.portMin)) usage("--port-min is not a port"); }
    else if (a == "--port-max") { if (!parsePort(val(), &cfg.portMax)) usage("--port-max is not a port"); }
    else if (a == "--max-calls") maxCalls = std::strtoul(val(), nullptr, 10);
    else if (a == "--max-message-size") cfg.maxMessageSize = std::strtoul(val(), nullptr, 10);
    else if (a == "--help" || a == "-h") usage(nullptr);
    else usage(("unknown option " + a).c_str());
  }
  if (cfg.portMin > cfg.portMax) usage("--port-min is above --port-max");
  dc::Addr ctl, probe;
  size_t colon = listen.rfind(':');
  int ctlPort = 0;
  if (colon == std::string::npos || !parsePort(listen.substr(colon + 1).c_str(), &ctlPort) ||
      !dc::Addr::parse(listen.substr(0, colon), ctlPort, ctl))
    usage("--listen is not IPv4:PORT");
  if (!dc::Addr::parse(cfg.browserAddr, 1, probe) || !dc::Addr::parse(cfg.imsAddr, 1, probe))
    usage("--browser-addr and --ims-addr take an IPv4 address");

  std::string err;
  auto dtls = dc::DtlsContext::create(dc::kDtlsCertName, dc::kDtlsSrtpProfiles, &err);
  if (!dtls) {
    std::fprintf(stderr, "datachannel: %s\n", err.c_str());
    return 1;
  }
  dc::SctpAssoc::globalInit();
  lg::EventLoop loop;
  if (!loop.ok()) {
    std::fprintf(stderr, "datachannel: epoll: %s\n", std::strerror(errno));
    return 1;
  }
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_in sa = ctl.sockaddr();
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) < 0) {
    std::fprintf(stderr, "datachannel: cannot listen on %s: %s\n", listen.c_str(), std::strerror(errno));
    return 1;
  }
  dc::Endpoint endpoint(loop, *dtls, cfg, maxCalls);
  dc::Control control(endpoint);
  ControlSocket cs(fd, control);
  loop.add(fd, &cs);
  struct sigaction sig{};
  sig.sa_handler = [](int) { gStop = 1; };
  sigaction(SIGTERM, &sig, nullptr);
  sigaction(SIGINT, &sig, nullptr);
  signal(SIGPIPE, SIG_IGN);
  std::fprintf(stderr, "datachannel: control on %s, browser leg %s, IMS leg %s, ports %d-%d\n", listen.c_str(),
               cfg.browserAddr.c_str(), cfg.imsAddr.c_str(), cfg.portMin, cfg.portMax);
  int64_t last = lg::nowNs();
  while (!gStop) {
    // 10 ms ticks drive DTLS and SCTP timers while there are sessions; idle, the loop only waits for a
    // control datagram (measured idle cost: ~100 wake-ups/s and 0.3 % of a core at 10 ms, ~0 at 1 s)
    loop.runOnce(endpoint.idle() ? 1000 : 10);
    int64_t now = lg::nowNs();
    uint32_t elapsed = static_cast<uint32_t>((now - last) / 1000000);
    if (elapsed > 0) {
      dc::SctpAssoc::tick(elapsed);
      endpoint.tick();
      last += static_cast<int64_t>(elapsed) * 1000000;
    }
  }
  std::fprintf(stderr, "datachannel: stopping\n");
  return 0;
}

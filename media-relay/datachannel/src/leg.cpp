#include "leg.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace dc {

namespace {
constexpr uint16_t kLocalSctpPort = 5000;
constexpr size_t kMaxEarly = 8;
}  // namespace

Leg::Leg(const char* name, lg::EventLoop& loop, const DtlsContext& dtls, Events ev)
    : name_(name), loop_(loop), dtlsCtx_(dtls), ev_(std::move(ev)), ice_(randomIceString(8), randomIceString(24)) {}

Leg::~Leg() {
  sctp_.reset();  // its ABORT goes out through DTLS first
  if (dtls_) dtls_->close();
  dtls_.reset();
  if (fd_ >= 0) {
    loop_.remove(fd_);
    ::close(fd_);
  }
}

bool Leg::bind(const std::string& addr, int portMin, int portMax, std::string* err) {
  Addr a;
  if (!Addr::parse(addr, 1, a)) {
    *err = "bad media address " + addr;
    return false;
  }
  fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) {
    *err = std::string("socket: ") + std::strerror(errno);
    return false;
  }
  int buf = 1 << 20;
  setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
  // start at a random port of the range so that a deleted session's port is not reused at once
  int span = portMax - portMin + 1;
  int first = static_cast<int>(lg::nowNs() / 1000 % span);
  for (int i = 0; i < span; ++i) {
    a.port = static_cast<uint16_t>(portMin + (first + i) % span);
    sockaddr_in sa = a.sockaddr();
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0) {
      addr_ = addr;
      port_ = a.port;
      loop_.add(fd_, this);
      return true;
    }
  }
  int e = errno;
  *err = e == EADDRINUSE ? "no free UDP port in " + std::to_string(portMin) + "-" + std::to_string(portMax) + " on " + addr
                         : "cannot bind a UDP port on " + addr + ": " + std::strerror(e);
  return false;
}

void Leg::configure(const AppMedia& remote, bool dtlsClient) {
  remote_ = remote;
  remoteIce_ = !remote.iceUfrag.empty();
  configured_ = true;
  // a peer without ICE is reached at its SDP address (c= and the m= port) until it sends from elsewhere
  if (!remoteIce_) Addr::parse(remote.connAddr, remote.port, peer_);
  dtls_ = std::make_unique<DtlsTransport>(
      dtlsCtx_, dtlsClient, [this](const uint8_t* d, size_t n) { sendTo(d, n); },
      [this](const uint8_t* d, size_t n) { onDtlsData(d, n); });
  std::fprintf(stderr, "%s leg %d: peer %s ICE, DTLS %s, SCTP port %d\n", name_, port_,
               remoteIce_ ? "with" : "without", dtlsClient ? "client" : "server", remote.sctpPort);
  auto early = std::move(early_);
  early_.clear();
  for (auto& [from, d] : early) onDatagram(d.data(), d.size(), from);
  maybeStartDtls();
}

void Leg::onReadable() {
  uint8_t buf[65536];
  for (;;) {
    sockaddr_in sa{};
    socklen_t sl = sizeof sa;
    ssize_t n = ::recvfrom(fd_, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&sa), &sl);
    if (n < 0) return;  // EAGAIN
    lastRxNs_ = lg::nowNs();
    onDatagram(buf, static_cast<size_t>(n), Addr::from(sa));
  }
}

void Leg::onDatagram(const uint8_t* d, size_t len, const Addr& from) {
  if (len == 0 || !failure_.empty()) return;
  if (d[0] <= 3) {  // STUN
    std::vector<uint8_t> resp;
    bool nominated = false;
    if (ice_.onStun(d, len, from, &resp, &nominated) != IceLite::Result::Answered) return;
    sockaddr_in sa = from.sockaddr();
    ::sendto(fd_, resp.data(), resp.size(), 0, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
    // the nominated pair wins; before a nomination, the first address that passed a check
    if (nominated) {
      nominated_ = true;
      peer_ = from;
    } else if (!nominated_ && peer_.empty()) {
      peer_ = from;
    }
    if (configured_) maybeStartDtls();
    return;
  }
  if (d[0] < 20 || d[0] > 63) return;  // not DTLS (RFC 7983); no RTP on a data-channel leg
  if (!configured_) {
    if (early_.size() < kMaxEarly) early_.emplace_back(from, std::vector<uint8_t>(d, d + len));
    return;
  }
  if (remoteIce_) {
    // only from an address that passed a connectivity check with our credentials
    if (!ice_.validated(from)) return;
    if (!nominated_ && !(peer_ == from)) peer_ = from;
  } else if (!(peer_ == from)) {
    peer_ = from;  // a peer without ICE: follow where its DTLS comes from
  }
  auto before = dtls_->state();
  dtls_->onDatagram(d, len);
  if (before != DtlsTransport::State::Done && dtls_->state() == DtlsTransport::State::Done) {
    if (!dtls_->verifyPeer(remote_.fpHash, remote_.fingerprint)) return fail(dtls_->error());
    std::fprintf(stderr, "%s leg %d: DTLS up with %s\n", name_, port_, peer_.str().c_str());
    SctpAssoc::Callbacks cb;
    cb.output = [this](const uint8_t* p, size_t n) { dtls_->send(p, n); };
    cb.up = [this] {
      std::fprintf(stderr, "%s leg %d: SCTP association up\n", name_, port_);
      if (ev_.up) ev_.up();
    };
    cb.message = [this](uint16_t sid, uint32_t ppid, std::string m) {
      if (ev_.message) ev_.message(sid, ppid, std::move(m));
    };
    cb.streamReset = [this](uint16_t sid) {
      if (ev_.streamReset) ev_.streamReset(sid);
    };
    cb.down = [this](const std::string& why) { fail("SCTP: " + why); };
    size_t maxMsg = remote_.maxMessageSize;
    sctp_ = std::make_unique<SctpAssoc>(kLocalSctpPort, static_cast<uint16_t>(remote_.sctpPort), maxMsg, cb);
    std::string err;
    if (!sctp_->start(&err)) return fail(err);
  }
  if (dtls_->state() == DtlsTransport::State::Failed) fail("DTLS " + dtls_->error());
  else if (dtls_->state() == DtlsTransport::State::Closed) fail(dtls_->error());
}

void Leg::onDtlsData(const uint8_t* d, size_t len) {
  if (sctp_) sctp_->input(d, len);
}

void Leg::sendTo(const uint8_t* d, size_t len) {
  if (peer_.empty()) return;
  sockaddr_in sa = peer_.sockaddr();
  ::sendto(fd_, d, len, 0, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
}

void Leg::maybeStartDtls() {
  if (!dtls_ || !dtls_->client() || dtls_->state() != DtlsTransport::State::Idle || peer_.empty()) return;
  if (remoteIce_ && !ice_.validated(peer_)) return;
  dtls_->start();
}

void Leg::onTick() {
  if (!dtls_ || !failure_.empty()) return;
  maybeStartDtls();
  dtls_->onTimer();
}

bool Leg::send(uint16_t sid, uint32_t ppid, const std::string& msg, bool ordered, const ChannelParams& p,
               std::string* err) {
  if (!sctp_) {
    *err = std::string("the ") + name_ + " leg has no SCTP association";
    return false;
  }
  return sctp_->send(sid, ppid, msg, ordered, p, err);
}

void Leg::resetStream(uint16_t sid) {
  if (sctp_) sctp_->resetStream(sid);
}

void Leg::fail(const std::string& why) {
  if (!failure_.empty()) return;
  failure_ = why;
  std::fprintf(stderr, "%s leg %d: failed: %s\n", name_, port_, why.c_str());
  if (ev_.failed) ev_.failed(why);
}

std::string Leg::state() const {
  if (!failure_.empty()) return "failed: " + failure_;
  if (sctp_ && sctp_->isUp()) return "up";
  if (sctp_) return "sctp";
  if (dtls_ && dtls_->state() == DtlsTransport::State::Handshaking) return "dtls";
  if (!peer_.empty()) return "ice";
  return "new";
}

}  // namespace dc

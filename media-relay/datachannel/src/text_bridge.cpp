#include "text_bridge.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include "dcep.h"
#include "text_sdp.h"

namespace dc {

namespace {
constexpr size_t kMaxForBrowser = 64 * 1024;  // text from RTP held while the channel is not open yet
constexpr size_t kMaxBeforeAnswer = 64 * 1024;

int udpSocket(const Addr& a) {
  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in sa = a.sockaddr();
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}
}  // namespace

TextBridge::TextBridge(std::string callId, lg::EventLoop& loop, Browser browser)
    : callId_(std::move(callId)), loop_(loop), browser_(std::move(browser)) {}

TextBridge::~TextBridge() {
  for (int fd : {fd_, rtcp_.fd}) {
    if (fd < 0) continue;
    loop_.remove(fd);
    ::close(fd);
  }
}

void TextBridge::RtcpSink::onReadable() {
  uint8_t buf[2048];
  for (;;) {
    sockaddr_in sa{};
    socklen_t sl = sizeof sa;
    ssize_t n = ::recvfrom(fd, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&sa), &sl);
    if (n < 0) return;
    if (peerIp == 0 || Addr::from(sa).ip != peerIp) continue;
    ++packets;
    uint32_t ssrc, mid;
    if (findRtcpSr(buf, static_cast<size_t>(n), &ssrc, &mid)) lastSr = {mid, lg::nowNs() / 1000000};
  }
}

// RFC 3550 §6: a compound report (SR while we send text, else RR; one block for the peer's stream;
// SDES CNAME) to the peer's RTCP port (its RTP port + 1) about every 5 s, randomised by 0.5-1.5
// (§6.3.5); the first after half of that (§6.2, the initial interval).
void TextBridge::sendRtcp(int64_t nowMs) {
  RtcpSender me;
  me.ssrc = tx_->ssrc();
  me.sent = tx_->packets() > 0;
  me.ntp = ntpNow();
  me.rtpTs = tx_->rtpTsAt(nowMs);
  me.packets = static_cast<uint32_t>(tx_->packets());
  me.octets = static_cast<uint32_t>(tx_->octets());
  me.cname = "datachannel@" + addr_;
  auto b = buildRtcpReport(me, &rxStats_, rtcp_.lastSr, nowMs);
  Addr to = peer_;
  to.port = static_cast<uint16_t>(peer_.port + 1);
  sockaddr_in sa = to.sockaddr();
  ::sendto(rtcp_.fd, b.data(), b.size(), 0, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
  ++rtcpSent_;
}

bool TextBridge::bindPorts(const std::string& addr, int portMin, int portMax, std::string* err) {
  Addr a;
  if (!Addr::parse(addr, 1, a)) {
    *err = "bad media address " + addr;
    return false;
  }
  // RTP on an even port, RTCP on the odd one above it (RFC 3550 §11)
  int first = portMin + (portMin & 1), span = (portMax - first) / 2;
  if (span <= 0) {
    *err = "the port range " + std::to_string(portMin) + "-" + std::to_string(portMax) + " has no RTP/RTCP pair";
    return false;
  }
  int start = static_cast<int>(lg::nowNs() / 1000 % span);
  for (int i = 0; i < span && fd_ < 0; ++i) {
    a.port = static_cast<uint16_t>(first + 2 * ((start + i) % span));
    int rtp = udpSocket(a);
    if (rtp < 0) continue;
    Addr b = a;
    b.port = static_cast<uint16_t>(a.port + 1);
    int rtcp = udpSocket(b);
    if (rtcp < 0) {
      ::close(rtp);
      continue;
    }
    fd_ = rtp;
    rtcp_.fd = rtcp;
    port_ = a.port;
  }
  if (fd_ < 0) {
    *err = "no free RTP/RTCP port pair in " + std::to_string(portMin) + "-" + std::to_string(portMax) + " on " + addr;
    return false;
  }
  loop_.add(fd_, this);
  loop_.add(rtcp_.fd, &rtcp_);
  addr_ = addr;
  return true;
}

bool TextBridge::offer(const Options& o, const std::string& addr, int portMin, int portMax, std::string* sdp,
                       std::string* err) {
  if (state_ != State::New) {
    *err = "this call has a text bridge already";
    return false;
  }
  if (!bindPorts(addr, portMin, portMax, err)) return false;
  opts_ = o;
  channel_ = o.channel;
  LocalText t;
  t.addr = addr;
  t.port = port_;
  t.t140Pt = o.t140Pt;
  t.redPt = o.redPt;
  t.generations = o.generations;
  t.cps = o.cps;
  t.sessionId = static_cast<uint64_t>(lg::nowNs() / 1000);
  *sdp = produceText(t);
  state_ = State::Offered;
  return true;
}

bool TextBridge::answer(const std::string& sdp, std::string* err) {
  if (state_ != State::Offered) {
    *err = state_ == State::New ? "this call has no text offer (text-offer first)" : "this call's text is already answered";
    return false;
  }
  auto t = parseText(sdp, err);
  if (!t) return false;
  if (t->rejected()) {
    *err = "the IMS side rejected the text section (port 0)";
    return false;
  }
  if (!start(*t, opts_.t140Pt, opts_.redPt, err)) return false;
  return true;
}

bool TextBridge::start(const TextMedia& tm, int rxT140, int rxRed, std::string* err) {
  const TextMedia* t = &tm;
  if (t->ipv6 || !Addr::parse(t->connAddr, t->port, peer_)) {
    *err = "the text section's address " + t->connAddr + " is not IPv4 (the text bridge has IPv4 only)";
    return false;
  }
  bool red = t->redPt >= 0 && opts_.redPt >= 0;
  sendT140Pt_ = t->t140Pt;
  sendRedPt_ = red ? t->redPt : -1;
  // the answer's red fmtp says how many generations it lists; never more than we offered
  generations_ = red ? (t->redGenerations > 0 ? std::min(t->redGenerations, opts_.generations) : opts_.generations) : 0;
  if (red && generations_ == 0) sendRedPt_ = -1;
  std::random_device rd;
  T140Packetizer::Config c;
  c.t140Pt = static_cast<uint8_t>(sendT140Pt_);
  c.redPt = sendRedPt_;
  c.generations = generations_;
  c.ssrc = rd();
  c.firstSeq = static_cast<uint16_t>(rd());
  c.firstTs = rd();
  c.cps = t->cps > 0 ? t->cps : 0;
  tx_ = std::make_unique<T140Packetizer>(c);
  // the IMS side sends with the payload types of our offer (RFC 3264 §5.1)
  rx_ = std::make_unique<T140Depacketizer>(static_cast<uint8_t>(rxT140), red ? rxRed : -1);
  if (!beforeAnswer_.empty()) tx_->add(beforeAnswer_);
  beforeAnswer_.clear();
  rtcp_.peerIp = peer_.ip;
  nextRtcpMs_ = lg::nowNs() / 1000000 + 1250 + static_cast<int64_t>(rd() % 2500);
  state_ = State::Answered;
  std::fprintf(stderr, "call %s: text bridge %d <-> %s, %s\n", callId_.c_str(), port_, peer_.str().c_str(),
               red ? ("red with " + std::to_string(generations_) + " redundant generations").c_str() : "plain t140");
  return true;
}

bool TextBridge::answerOffer(const Options& o, const std::string& imsOffer, const std::string& addr, int portMin,
                             int portMax, std::string* sdp, std::string* err) {
  if (state_ != State::New) {
    *err = "this call has a text bridge already";
    return false;
  }
  auto t = parseText(imsOffer, err);
  if (!t) return false;
  if (t->rejected()) {
    *err = "the IMS offer's text section is disabled (port 0)";
    return false;
  }
  if (t->t140Pt < 0) {
    *err = "the IMS offer's text section has no t140/1000 (RFC 4103)";
    return false;
  }
  if (!bindPorts(addr, portMin, portMax, err)) return false;
  // an answer keeps the offer's payload types (RFC 3264 §6.1); red only when both want it
  opts_ = o;
  opts_.t140Pt = t->t140Pt;
  opts_.redPt = (o.redPt >= 0 && t->redPt >= 0) ? t->redPt : -1;
  if (opts_.redPt >= 0 && t->redGenerations > 0) opts_.generations = std::min(o.generations, t->redGenerations);
  if (opts_.redPt < 0) opts_.generations = 0;
  channel_ = o.channel;
  TextMedia peer = *t;
  peer.redPt = opts_.redPt;
  if (!start(peer, opts_.t140Pt, opts_.redPt, err)) return false;
  LocalText l;
  l.addr = addr;
  l.port = port_;
  l.t140Pt = opts_.t140Pt;
  l.redPt = opts_.redPt;
  l.generations = generations_;
  l.cps = o.cps;
  l.sessionId = static_cast<uint64_t>(lg::nowNs() / 1000);
  *sdp = produceText(l);
  return true;
}

bool TextBridge::fromBrowser(uint16_t sid, uint32_t ppid, const std::string& msg) {
  if (ppid == kPpidDcep) {
    const auto* d = reinterpret_cast<const uint8_t*>(msg.data());
    if (sid == channel_) return true;  // an ACK or a repeated OPEN on our stream: nothing to relay
    if (channel_ >= 0 || closed_ || opts_.channel >= 0 || isAck(d, msg.size())) return false;
    std::string err;
    auto p = decodeOpen(d, msg.size(), &err);
    if (!p || p->protocol != "t140") return false;
    channel_ = sid;
    auto ack = encodeAck();
    browser_.send(sid, kPpidDcep, std::string(ack.begin(), ack.end()));
    std::fprintf(stderr, "call %s: T.140 channel \"%s\" opened by the browser on stream %u: bridged to RTP text\n",
                 callId_.c_str(), p->label.c_str(), sid);
    return true;
  }
  if (channel_ < 0 || sid != channel_) return false;
  if (ppid != kPpidString && ppid != kPpidBinary) return true;  // empty messages carry no text
  ++fromBrowserMsgs_;
  fromBrowserChars_ += utf8Chars(msg);
  if (tx_) tx_->add(msg);
  else if (beforeAnswer_.size() + msg.size() <= kMaxBeforeAnswer) beforeAnswer_ += msg;
  return true;
}

bool TextBridge::browserStreamReset(uint16_t sid) {
  if (channel_ < 0 || sid != channel_) return false;
  std::fprintf(stderr, "call %s: the browser closed the T.140 channel (stream %u)\n", callId_.c_str(), sid);
  channel_ = -1;
  closed_ = true;
  return true;
}

void TextBridge::tick(int64_t nowMs) {
  if (tx_) {
    std::vector<uint8_t> p;
    sockaddr_in sa = peer_.sockaddr();
    while (tx_->poll(nowMs, &p)) ::sendto(fd_, p.data(), p.size(), 0, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
    if (nowMs >= nextRtcpMs_) {
      sendRtcp(nowMs);
      nextRtcpMs_ = nowMs + 2500 + static_cast<int64_t>(lg::nowNs() / 1000 % 5000);
    }
  }
  flushToBrowser();
}

void TextBridge::onReadable() {
  uint8_t buf[4096];
  for (;;) {
    sockaddr_in sa{};
    socklen_t sl = sizeof sa;
    ssize_t n = ::recvfrom(fd_, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&sa), &sl);
    if (n < 0) return;
    if (!rx_) {
      ++rtpEarly_;  // before the answer says who the peer is
      continue;
    }
    if (Addr::from(sa).ip != peer_.ip) {
      ++rtpForeign_;  // only the answered address may send us text
      continue;
    }
    std::string text, err;
    if (!rx_->push(buf, static_cast<size_t>(n), &text, &err)) {
      ++rtpRefused_;
      lastRefusal_ = err;
      continue;
    }
    rxStats_.onPacket(static_cast<uint32_t>(buf[8]) << 24 | buf[9] << 16 | buf[10] << 8 | buf[11],
                      static_cast<uint16_t>(buf[2] << 8 | buf[3]),
                      static_cast<uint32_t>(buf[4]) << 24 | buf[5] << 16 | buf[6] << 8 | buf[7], lg::nowNs() / 1000000);
    if (!text.empty()) toBrowser(text);
  }
}

void TextBridge::toBrowser(const std::string& text) {
  if (forBrowser_.size() + text.size() > kMaxForBrowser) return;
  forBrowser_ += text;
  flushToBrowser();
}

void TextBridge::flushToBrowser() {
  if (forBrowser_.empty() || channel_ < 0 || !browser_.up()) return;
  if (!browser_.send(static_cast<uint16_t>(channel_), kPpidString, forBrowser_)) return;
  ++toBrowserMsgs_;
  toBrowserChars_ += utf8Chars(forBrowser_);
  forBrowser_.clear();
}

lg::BValue TextBridge::stats() const {
  lg::BValue s = lg::BValue::makeDict();
  s["state"] = state_ == State::Answered ? "answered" : state_ == State::Offered ? "offered" : "new";
  s["port"] = port_;
  if (!peer_.empty()) s["peer"] = peer_.str();
  if (channel_ >= 0) s["channel"] = channel_;
  if (closed_) s["channel-closed"] = "yes";
  if (state_ == State::Answered) {
    s["redundancy"] = generations_;
    s["t140-pt"] = sendT140Pt_;
    if (sendRedPt_ >= 0) s["red-pt"] = sendRedPt_;
  }
  lg::BValue up = lg::BValue::makeDict();
  up["messages"] = static_cast<int64_t>(fromBrowserMsgs_);
  up["chars"] = static_cast<int64_t>(fromBrowserChars_);
  up["rtp-packets"] = static_cast<int64_t>(tx_ ? tx_->packets() : 0);
  up["rtp-chars"] = static_cast<int64_t>(tx_ ? tx_->chars() : 0);
  up["rtcp-packets"] = static_cast<int64_t>(rtcpSent_);
  s["browser-to-ims"] = up;
  lg::BValue down = lg::BValue::makeDict();
  down["rtp-packets"] = static_cast<int64_t>(rx_ ? rx_->packets() : 0);
  down["recovered"] = static_cast<int64_t>(rx_ ? rx_->recovered() : 0);
  down["lost"] = static_cast<int64_t>(rx_ ? rx_->lost() : 0);
  down["stale"] = static_cast<int64_t>(rx_ ? rx_->stale() : 0);
  down["refused"] = static_cast<int64_t>(rtpRefused_ + rtpForeign_ + rtpEarly_);
  if (!lastRefusal_.empty()) down["last-refusal"] = lastRefusal_;
  down["messages"] = static_cast<int64_t>(toBrowserMsgs_);
  down["chars"] = static_cast<int64_t>(toBrowserChars_);
  down["rtcp-packets"] = static_cast<int64_t>(rtcp_.packets);
  if (rxStats_.started()) {
    down["rtp-lost"] = static_cast<int64_t>(rxStats_.cumulativeLost());  // RFC 3550: expected - received
    down["jitter-ms"] = static_cast<int64_t>(rxStats_.jitter());
  }
  s["ims-to-browser"] = down;
  return s;
}

}  // namespace dc

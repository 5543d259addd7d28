#include "session.h"

#include <algorithm>
#include <cstdio>

namespace dc {

namespace {
constexpr size_t kMaxPendingBytes = 4 << 20;
constexpr size_t kMaxLatencySamples = 100000;

// Our DTLS role from the peer's a=setup (RFC 8842 §5): we take the role the peer left.
bool weAreClient(const std::string& peerSetup, bool peerIsOfferer) {
  if (peerSetup == "passive") return true;
  if (peerSetup == "active" || peerSetup == "actpass") return false;
  return !peerIsOfferer;  // absent: RFC 4145 default "active" for the peer
}
}  // namespace

Session::Session(std::string callId, lg::EventLoop& loop, const DtlsContext& dtls, const MediaConfig& cfg)
    : callId_(std::move(callId)), cfg_(cfg), dtls_(dtls) {
  for (Side s : {kBrowser, kIms}) {
    Leg::Events ev;
    ev.up = [this, s] { onUp(s); };
    ev.message = [this, s](uint16_t sid, uint32_t ppid, std::string m) { onMessage(s, sid, ppid, std::move(m)); };
    ev.streamReset = [this, s](uint16_t sid) { onStreamReset(s, sid); };
    ev.failed = [this, s](const std::string& why) {
      std::fprintf(stderr, "call %s: %s leg failed: %s\n", callId_.c_str(), sideName(s), why.c_str());
    };
    legs_[s] = std::make_unique<Leg>(sideName(s), loop, dtls, ev);
  }
}

bool Session::offer(const std::string& browserSdp, const std::vector<DcMap>& channels, std::string* browserAnswer,
                    std::string* imsOffer, std::string* err) {
  auto remote = parseApp(browserSdp, err);
  if (!remote) return false;
  if (remote->rejected()) {
    *err = "the browser's data-channel section is rejected (port 0)";
    return false;
  }
  if (remote->iceUfrag.empty()) {
    *err = "the browser's offer has no a=ice-ufrag/a=ice-pwd (a WebRTC peer does ICE)";
    return false;
  }
  std::vector<DcMap> all = remote->dcmaps;
  all.insert(all.end(), channels.begin(), channels.end());
  for (const auto& m : all) {
    if (!map_.addNegotiated(m.id, m.params)) {
      *err = "channel id " + std::to_string(m.id) + " is negotiated twice or is beyond " +
             std::to_string(ChannelMap::kMaxStreams - 1);
      return false;
    }
  }
  offered_ = all;
  if (!legs_[kBrowser]->bind(cfg_.browserAddr, cfg_.portMin, cfg_.portMax, err) ||
      !legs_[kIms]->bind(cfg_.imsAddr, cfg_.portMin, cfg_.portMax, err))
    return false;
  bool client = weAreClient(remote->setup, true);
  map_.setDtlsClient(kBrowser, client);
  uint64_t sessId = static_cast<uint64_t>(lg::nowNs() / 1000);
  LocalMedia b;
  b.addr = cfg_.browserAddr;
  b.port = legs_[kBrowser]->port();
  b.mid = remote->mid;
  b.iceUfrag = legs_[kBrowser]->ice().ufrag();
  b.icePwd = legs_[kBrowser]->ice().pwd();
  b.setup = client ? "active" : "passive";
  b.maxMessageSize = cfg_.maxMessageSize;
  b.dcmaps = all;
  b.sessionId = sessId;
  LocalMedia i = b;
  i.addr = cfg_.imsAddr;
  i.port = legs_[kIms]->port();
  i.mid.clear();
  i.iceUfrag = legs_[kIms]->ice().ufrag();
  i.icePwd = legs_[kIms]->ice().pwd();
  i.setup = "actpass";
  i.sessionId = sessId + 1;
  b.fingerprint = i.fingerprint = dtls_.fingerprint();
  *browserAnswer = produce(b);
  *imsOffer = produce(i);
  legs_[kBrowser]->configure(*remote, client);
  return true;
}

bool Session::offerFromIms(const std::string& imsSdp, std::string* browserOffer, std::string* imsAnswer,
                           std::string* err) {
  auto remote = parseApp(imsSdp, err);
  if (!remote) return false;
  if (remote->rejected()) {
    *err = "the IMS offer's data-channel section is rejected (port 0)";
    return false;
  }
  for (const auto& m : remote->dcmaps) {
    if (!map_.addNegotiated(m.id, m.params)) {
      *err = "channel id " + std::to_string(m.id) + " is negotiated twice or is beyond " +
             std::to_string(ChannelMap::kMaxStreams - 1);
      return false;
    }
  }
  offered_ = remote->dcmaps;
  answering_ = kBrowser;
  if (!legs_[kBrowser]->bind(cfg_.browserAddr, cfg_.portMin, cfg_.portMax, err) ||
      !legs_[kIms]->bind(cfg_.imsAddr, cfg_.portMin, cfg_.portMax, err))
    return false;
  bool client = weAreClient(remote->setup, true);
  map_.setDtlsClient(kIms, client);
  uint64_t sessId = static_cast<uint64_t>(lg::nowNs() / 1000);
  LocalMedia i;
  i.addr = cfg_.imsAddr;
  i.port = legs_[kIms]->port();
  i.mid = remote->mid;
  i.iceUfrag = legs_[kIms]->ice().ufrag();
  i.icePwd = legs_[kIms]->ice().pwd();
  i.setup = client ? "active" : "passive";
  i.maxMessageSize = cfg_.maxMessageSize;
  i.dcmaps = remote->dcmaps;  // the IMS side's channels, all accepted toward it (RFC 8864 §5.1.2)
  i.sessionId = sessId;
  LocalMedia b = i;
  b.addr = cfg_.browserAddr;
  b.port = legs_[kBrowser]->port();
  b.mid.clear();  // the gateway gives the browser's section the mid its offer needs
  b.iceUfrag = legs_[kBrowser]->ice().ufrag();
  b.icePwd = legs_[kBrowser]->ice().pwd();
  b.setup = "actpass";
  b.sessionId = sessId + 1;
  b.fingerprint = i.fingerprint = dtls_.fingerprint();
  *browserOffer = produce(b);
  *imsAnswer = produce(i);
  browserOffer_ = b;
  imsOffered_ = true;
  legs_[kIms]->configure(*remote, client);
  return true;
}

bool Session::answer(const std::string& sdp, std::vector<uint16_t>* accepted, std::string* err) {
  const char* who = answering_ == kIms ? "the IMS side" : "the browser";
  if (answered_) {
    *err = std::string("this call's ") + sideName(answering_) + " leg is already answered";
    return false;
  }
  auto remote = parseApp(sdp, err);
  if (!remote) return false;
  if (remote->rejected()) {
    *err = std::string(who) + " rejected the data-channel section (port 0)";
    return false;
  }
  if (remote->setup == "actpass") {
    *err = std::string("the answer of ") + who + " has a=setup:actpass (an answer must choose active or passive, RFC 8842)";
    return false;
  }
  if (answering_ == kBrowser && remote->iceUfrag.empty()) {
    *err = "the browser's answer has no a=ice-ufrag/a=ice-pwd (a WebRTC peer does ICE)";
    return false;
  }
  for (const auto& o : offered_) {
    bool ok = std::any_of(remote->dcmaps.begin(), remote->dcmaps.end(), [&](const DcMap& a) { return a.id == o.id; });
    if (ok) accepted->push_back(o.id);
    else map_.close(other(answering_), o.id);  // RFC 8864 §5.1.2: an answer without the dcmap declines it
  }
  bool client = weAreClient(remote->setup, false);
  map_.setDtlsClient(answering_, client);
  legs_[answering_]->configure(*remote, client);
  answered_ = true;
  return true;
}

void Session::tick() {
  legs_[kBrowser]->onTick();
  legs_[kIms]->onTick();
  if (text_) text_->tick(lg::nowNs() / 1000000);
}

bool Session::textOffer(lg::EventLoop& loop, const TextBridge::Options& o, std::string* imsText, std::string* err) {
  if (text_) {
    *err = "this call has a text bridge already";
    return false;
  }
  if (o.channel >= 0) {
    const Route* r = map_.route(kBrowser, static_cast<uint16_t>(o.channel));
    // the browser's own a=dcmap for its T.140 channel (the page writes one, RFC 8865 §4.2): the bridge takes
    // the stream over, it is not relayed to the IMS leg
    if (r && r->negotiated && r->params.protocol == "t140") {
      map_.close(kBrowser, static_cast<uint16_t>(o.channel));
      offered_.erase(std::remove_if(offered_.begin(), offered_.end(), [&](const DcMap& m) { return m.id == o.channel; }),
                     offered_.end());
    } else if (r) {
      *err = "stream " + std::to_string(o.channel) + " is already a data channel of this call";
      return false;
    }
  }
  TextBridge::Browser b;
  b.up = [this] { return legs_[kBrowser]->up(); };
  b.send = [this](uint16_t sid, uint32_t ppid, const std::string& m) {
    std::string e;
    if (legs_[kBrowser]->send(sid, ppid, m, true, ChannelParams{}, &e)) return true;
    std::fprintf(stderr, "call %s: T.140 to the browser, stream %u: %s\n", callId_.c_str(), sid, e.c_str());
    return false;
  };
  auto t = std::make_unique<TextBridge>(callId_, loop, b);
  if (!t->offer(o, cfg_.imsAddr, cfg_.portMin, cfg_.portMax, imsText, err)) return false;
  text_ = std::move(t);
  return true;
}

bool Session::textOfferFromIms(lg::EventLoop& loop, const TextBridge::Options& o, const std::string& imsSdp,
                               std::string* browserOffer, std::string* imsAnswer, std::string* err) {
  if (text_) {
    *err = "this call has a text bridge already";
    return false;
  }
  if (o.channel < 0) {
    *err = "a text offer from the IMS side needs \"channel\" (the T.140 stream id to offer the browser)";
    return false;
  }
  bool joining = imsOffered_;  // the IMS offer had m=application too: one section toward the browser for both
  if (joining && answered_) {
    *err = "the browser answered this call's offer already (text is added with the call's offer from IMS)";
    return false;
  }
  if (joining && map_.route(kBrowser, static_cast<uint16_t>(o.channel))) {
    *err = "stream " + std::to_string(o.channel) + " is already a data channel of the IMS offer (give another \"channel\")";
    return false;
  }
  answering_ = kBrowser;
  if (!joining && !legs_[kBrowser]->bind(cfg_.browserAddr, cfg_.portMin, cfg_.portMax, err)) return false;
  TextBridge::Browser tb;
  tb.up = [this] { return legs_[kBrowser]->up(); };
  tb.send = [this](uint16_t sid, uint32_t ppid, const std::string& m) {
    std::string e;
    if (legs_[kBrowser]->send(sid, ppid, m, true, ChannelParams{}, &e)) return true;
    std::fprintf(stderr, "call %s: T.140 to the browser, stream %u: %s\n", callId_.c_str(), sid, e.c_str());
    return false;
  };
  auto t = std::make_unique<TextBridge>(callId_, loop, tb);
  if (!t->answerOffer(o, imsSdp, cfg_.imsAddr, cfg_.portMin, cfg_.portMax, imsAnswer, err)) return false;
  text_ = std::move(t);
  DcMap t140;
  t140.id = static_cast<uint16_t>(o.channel);
  t140.params.label = "t140";
  t140.params.protocol = "t140";
  if (joining) {  // not in the channel map: the text bridge takes the stream's messages
    browserOffer_.dcmaps.push_back(t140);
    browserOffer_.sessionVersion++;
    *browserOffer = produce(browserOffer_);
    return true;
  }
  LocalMedia b;
  b.addr = cfg_.browserAddr;
  b.port = legs_[kBrowser]->port();
  b.iceUfrag = legs_[kBrowser]->ice().ufrag();
  b.icePwd = legs_[kBrowser]->ice().pwd();
  b.setup = "actpass";
  b.maxMessageSize = cfg_.maxMessageSize;
  b.dcmaps = {t140};  // not in the channel map: the text bridge takes the stream's messages
  b.sessionId = static_cast<uint64_t>(lg::nowNs() / 1000);
  b.fingerprint = dtls_.fingerprint();
  *browserOffer = produce(b);
  return true;
}

bool Session::textAnswer(const std::string& imsSdp, std::string* err) {
  if (!text_) {
    *err = "this call has no text offer (text-offer first)";
    return false;
  }
  return text_->answer(imsSdp, err);
}

void Session::onMessage(Side from, uint16_t sid, uint32_t ppid, std::string msg) {
  if (from == kBrowser && text_ && text_->fromBrowser(sid, ppid, msg)) return;  // the T.140 channel's
  int64_t rx = legs_[from]->lastRxNs();
  if (!legs_[other(from)]->up() && ppid != kPpidDcep) {
    if (pendingBytes_ + msg.size() > kMaxPendingBytes) {
      ++dir_[from].dropped;
      return;
    }
    pendingBytes_ += msg.size();
    pending_[from].push_back({sid, ppid, std::move(msg), rx});
    return;
  }
  if (ppid == kPpidDcep && !map_.roleKnown(other(from))) {
    pending_[from].push_back({sid, ppid, std::move(msg), rx});
    return;
  }
  handle(from, sid, ppid, msg, rx);
}

void Session::sendDcep(Side s, uint16_t sid, const std::vector<uint8_t>& m) {
  std::string err;
  ChannelParams reliable;
  if (!legs_[s]->send(sid, kPpidDcep, std::string(m.begin(), m.end()), true, reliable, &err))
    std::fprintf(stderr, "call %s: DCEP on the %s leg, stream %u: %s\n", callId_.c_str(), sideName(s), sid, err.c_str());
}

void Session::handle(Side from, uint16_t sid, uint32_t ppid, const std::string& msg, int64_t rxNs) {
  Side to = other(from);
  if (ppid == kPpidDcep) {
    const auto* d = reinterpret_cast<const uint8_t*>(msg.data());
    if (isAck(d, msg.size())) {
      map_.markAcked(from, sid);
      return;
    }
    std::string err;
    auto p = decodeOpen(d, msg.size(), &err);
    if (!p) {
      std::fprintf(stderr, "call %s: %s leg, stream %u: %s\n", callId_.c_str(), sideName(from), sid, err.c_str());
      return;
    }
    auto id = map_.openFromPeer(from, sid, *p, &err);
    if (!id) {
      // RFC 8832 §6: a channel that cannot be opened is closed by resetting its stream
      std::fprintf(stderr, "call %s: DCEP open \"%s\" refused: %s\n", callId_.c_str(), p->label.c_str(), err.c_str());
      legs_[from]->resetStream(sid);
      return;
    }
    sendDcep(from, sid, encodeAck());
    if (legs_[to]->up()) sendDcep(to, *id, encodeOpen(*p));
    std::fprintf(stderr, "call %s: channel \"%s\" opened by the %s peer on stream %u, relayed as stream %u\n",
                 callId_.c_str(), p->label.c_str(), sideName(from), sid, *id);
    return;
  }
  const Route* r = map_.route(from, sid);
  if (!r) {
    ++dir_[from].dropped;
    return;
  }
  std::string err;
  bool ordered = r->params.ordered || !r->acked;
  if (!legs_[to]->send(r->sid, ppid, msg, ordered, r->params, &err)) {
    ++dir_[from].dropped;
    std::fprintf(stderr, "call %s: %s -> %s stream %u: %s\n", callId_.c_str(), sideName(from), sideName(to), r->sid,
                 err.c_str());
    return;
  }
  auto& d = dir_[from];
  ++d.messages;
  d.bytes += msg.size();
  if (d.relayUs.size() < kMaxLatencySamples) d.relayUs.push_back(static_cast<uint32_t>((lg::nowNs() - rxNs) / 1000));
}

void Session::onUp(Side s) {
  // channels the other peer opened with DCEP before this leg was up: open them here now, then
  // relay what was queued for this leg, in arrival order
  Side from = other(s);
  for (const auto& [sid, r] : map_.list(from))
    if (!r.negotiated && !r.acked) sendDcep(s, r.sid, encodeOpen(r.params));
  auto q = std::move(pending_[from]);
  pending_[from].clear();
  for (auto& p : q) {
    if (p.ppid != kPpidDcep) pendingBytes_ -= p.msg.size();
    handle(from, p.sid, p.ppid, p.msg, p.rxNs);
  }
}

void Session::onStreamReset(Side from, uint16_t sid) {
  legs_[from]->resetStream(sid);  // RFC 8831 §6.7: close our direction too
  if (from == kBrowser && text_ && text_->browserStreamReset(sid)) return;
  auto far = map_.close(from, sid);
  if (!far) return;
  legs_[far->first]->resetStream(far->second);
  std::fprintf(stderr, "call %s: the %s peer closed stream %u: closing stream %u on the %s leg\n", callId_.c_str(),
               sideName(from), sid, far->second, sideName(far->first));
}

lg::BValue Session::stats() const {
  using lg::BValue;
  BValue out = BValue::makeDict();
  for (Side s : {kBrowser, kIms}) {
    BValue leg = BValue::makeDict();
    leg["state"] = legs_[s]->state();
    leg["port"] = legs_[s]->port();
    if (!legs_[s]->peer().empty()) leg["peer"] = legs_[s]->peer().str();
    out["legs"][sideName(s)] = leg;
  }
  BValue chans = BValue::makeList();
  for (const auto& [sid, r] : map_.list(kBrowser)) {
    BValue c = BValue::makeDict();
    c["browser-stream"] = static_cast<int64_t>(sid);
    c["ims-stream"] = static_cast<int64_t>(r.sid);
    c["label"] = r.params.label;
    c["ordered"] = r.params.ordered ? "yes" : "no";
    c["negotiated"] = r.negotiated ? "yes" : "no";
    if (r.params.reliability == Reliability::Rexmit) c["max-retr"] = static_cast<int64_t>(r.params.reliabilityParam);
    if (r.params.reliability == Reliability::Timed) c["max-time"] = static_cast<int64_t>(r.params.reliabilityParam);
    chans.list.push_back(c);
  }
  out["channels"] = chans;
  if (text_) out["text"] = text_->stats();
  for (Side s : {kBrowser, kIms}) {
    const auto& d = dir_[s];
    BValue v = BValue::makeDict();
    v["messages"] = static_cast<int64_t>(d.messages);
    v["bytes"] = static_cast<int64_t>(d.bytes);
    v["dropped"] = static_cast<int64_t>(d.dropped);
    if (!d.relayUs.empty()) {
      auto sorted = d.relayUs;
      std::sort(sorted.begin(), sorted.end());
      v["relay-us-p50"] = static_cast<int64_t>(sorted[sorted.size() / 2]);
      v["relay-us-p99"] = static_cast<int64_t>(sorted[std::min(sorted.size() - 1, sorted.size() * 99 / 100)]);
      v["relay-us-max"] = static_cast<int64_t>(sorted.back());
    }
    out[s == kBrowser ? "browser-to-ims" : "ims-to-browser"] = v;
  }
  return out;
}

}  // namespace dc

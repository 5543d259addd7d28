#include "engine.h"

#include <unistd.h>

#include "ng_signaling.h"

namespace lg {

namespace {
constexpr uint64_t kRampKey = ~uint64_t{0};
constexpr int64_t kDeleteGraceNs = 4'000'000'000LL;  // > ng retransmission budget (~3 s)
}  // namespace

Engine::Engine(const Config& cfg, const DtlsContext& dtls, Counters& counters, int id, int64_t t0,
               const std::atomic<bool>& stop, std::vector<AccessLink*> gws)
    : cfg_(cfg), dtls_(dtls), counters_(counters), id_(id), t0_(t0), stop_(stop), gws_(std::move(gws)),
      rng_(std::random_device{}() ^ (static_cast<uint64_t>(id) << 32) ^ static_cast<uint64_t>(t0)) {
  for (int i = id; i < cfg.calls; i += cfg.threads) indices_.push_back(i);
}

bool Engine::run(std::string& err) {
  if (!loop_.ok()) {
    err = "epoll_create failed";
    return false;
  }
  bool gateway = !gws_.empty();
  if (!gateway) {
    ng_ = std::make_unique<NgClient>(loop_, cfg_.ng,
                                     "lg" + std::to_string(getpid()) + "t" + std::to_string(id_) + "_");
    if (!ng_->open(&err)) return false;
  }
  SignalingFactory makeSignaling;
  if (gateway)
    makeSignaling = [this](SignalingHost& host, const CallResult& call) -> std::unique_ptr<CallSignaling> {
      // Originated call i belongs to this engine (i mod threads == id); its calls take the engine's users in turn.
      AccessLink& link = call.mt && incomingLink_ ? *incomingLink_
                                                  : *gws_[static_cast<size_t>(call.index / cfg_.threads) % gws_.size()];
      host.res().user = link.user();
      return link.makeSignaling(host, cfg_, call.mt ? incoming_ : nullptr, incomingAt_);
    };
  else
    makeSignaling = [this](SignalingHost& host, const CallResult& call) -> std::unique_ptr<CallSignaling> {
      return std::make_unique<NgSignaling>(host, *ng_, cfg_, rng_, call);
    };
  env_.reset(new Env{cfg_, loop_, std::move(makeSignaling), dtls_, counters_, rttUs_, rng_});
  calls_.reserve(indices_.size());
  // Call objects live until the engine ends: epoll may still hold a pointer in the current batch.
  // Timer key = position in calls_ (MO calls first, MT calls appended as they arrive).
  for (int idx : indices_) calls_.push_back(std::make_unique<Call>(*env_, idx, false, static_cast<int64_t>(calls_.size())));
  moCalls_ = calls_.size();
  for (AccessLink* l : gws_) {
    if (cfg_.answer) l->onIncoming([this, l](const IncomingCall& e, int64_t now) { acceptIncoming(*l, e, now); });
    // Attached last: frames that came with the WebSocket handshake (an early `incoming`) are handled here.
    l->attach(loop_);
  }
  loop_.setTimerFn([this](uint64_t key, int64_t when) { onTimer(key, when); });
  if (!calls_.empty()) loop_.schedule(t0_, kRampKey);

  int64_t timeoutNs = static_cast<int64_t>(cfg_.timeoutS * 1e9);
  int64_t stopAt = 0;
  // After a stop, calls get this long to be deleted (ng) or to see `ended` after their hangup.
  int64_t graceNs = gateway ? static_cast<int64_t>((cfg_.hangupWaitS + 1) * 1e9) : kDeleteGraceNs;
  for (;;) {
    int64_t now = nowNs();
    if (!stopping_ && stop_.load()) stopAll("interrupted");
    if (!stopping_ && now - t0_ >= timeoutNs) {
      timedOut_ = true;
      stopAll("overall timeout");
    }
    if (stopping_ && !stopAt) stopAt = now;
    bool allDone = nextToStart_ == moCalls_ || stopping_;
    // --answer: an answering run ends once --expect-calls incoming calls came (and ended), else at --timeout
    if (cfg_.answer && !stopping_ && (cfg_.expectCalls == 0 || counters_.incoming.load() < static_cast<uint64_t>(cfg_.expectCalls)))
      allDone = false;
    for (const auto& c : calls_)
      if (!c->done()) { allDone = false; break; }
    if (allDone && (!ng_ || ng_->pending() == 0)) break;
    if (stopAt && now - stopAt > graceNs) break;  // rtpengine/gateway gone: do not hang
    loop_.runOnce(50);
    if (ng_) ng_->tick(nowNs());
  }
  return true;
}

void Engine::onTimer(uint64_t key, int64_t when) {
  if (key == kRampKey) return startDueCalls(nowNs());
  if (key < calls_.size()) calls_[key]->onTimer(when);  // key = position in calls_
}

void Engine::startDueCalls(int64_t now) {
  if (stopping_) return;
  double perCallNs = 1e9 / cfg_.cps;
  while (nextToStart_ < moCalls_) {
    int64_t due = t0_ + static_cast<int64_t>(indices_[nextToStart_] * perCallNs);
    if (due > now) {
      loop_.schedule(due, kRampKey);
      return;
    }
    calls_[nextToStart_++]->start(now);
  }
}

void Engine::acceptIncoming(AccessLink& link, const IncomingCall& e, int64_t now) {
  // Engines share the count: take the next number only while it is below --expect-calls.
  uint64_t n = counters_.incoming.load();
  bool take = false;
  while (!stopping_ && (cfg_.expectCalls == 0 || n < static_cast<uint64_t>(cfg_.expectCalls)))
    if (counters_.incoming.compare_exchange_weak(n, n + 1)) {
      take = true;
      break;
    }
  if (!take) {
    counters_.rejected++;
    link.refuseIncoming(e);  // gateway: `hangup` while ringing = 603 Decline; SIP: 486
    return;
  }
  // Run-wide number (report order, call-id): after the originated calls, in order of arrival.
  int index = cfg_.calls + static_cast<int>(n);
  indices_.push_back(index);
  incoming_ = &e;
  incomingAt_ = now;
  incomingLink_ = &link;
  calls_.push_back(std::make_unique<Call>(*env_, index, true, static_cast<int64_t>(calls_.size())));
  incoming_ = nullptr;
  incomingLink_ = nullptr;
  calls_.back()->answerIncoming(e.sdp, now);
}

void Engine::stopAll(const std::string& why) {
  stopping_ = true;
  for (auto& c : calls_) c->stop(why);
}

std::vector<CallResult> Engine::results() const {
  std::vector<CallResult> out;
  for (const auto& c : calls_) out.push_back(c->result());
  return out;
}

}  // namespace lg

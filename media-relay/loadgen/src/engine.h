// One engine = one thread: an epoll loop, an ng client (raw) or its share of the users' WebSockets
// (gateway), and the calls whose index % threads == id. Calls start on the global ramp (call i at
// t0 + i/cps) so T engines together keep the asked rate. Gateway --answer: an incoming call is
// appended to the engine whose WebSocket it came on (run-wide index: --calls + arrival number).
#pragma once
#include <atomic>
#include <memory>
#include <random>
#include <vector>

#include "call.h"
#include "config.h"
#include "dtls.h"
#include "event_loop.h"
#include "access_link.h"
#include "ng_client.h"

namespace lg {

class Engine {
 public:
  // gws non-empty: gateway mode; this engine's loop serves these users' WebSockets (users are dealt
  // to engines in turn). Originated call i goes through this engine's user (i / threads) mod |gws|;
  // an incoming call is answered on the link it came in on.
  Engine(const Config& cfg, const DtlsContext& dtls, Counters& counters, int id, int64_t t0,
         const std::atomic<bool>& stop, std::vector<AccessLink*> gws = {});
  // Runs until every call ended (or the overall timeout / stop flag plus a grace period for deletes).
  // Returns false with err when the engine could not start at all.
  bool run(std::string& err);
  std::vector<CallResult> results() const;
  std::vector<float>& rttUs() { return rttUs_; }
  bool timedOut() const { return timedOut_; }
  int64_t ngRetransmits() const { return ng_ ? ng_->retransmits() : 0; }

 private:
  void onTimer(uint64_t key, int64_t when);
  void startDueCalls(int64_t now);
  void stopAll(const std::string& why);
  void acceptIncoming(AccessLink& link, const IncomingCall& e, int64_t now);  // --answer: a new MT call

  const Config& cfg_;
  const DtlsContext& dtls_;
  Counters& counters_;
  int id_;
  int64_t t0_;
  const std::atomic<bool>& stop_;
  EventLoop loop_;
  std::unique_ptr<NgClient> ng_;
  std::vector<AccessLink*> gws_;
  AccessLink* incomingLink_ = nullptr;       // the link of the MT call being constructed
  std::mt19937_64 rng_;
  std::vector<float> rttUs_;
  std::unique_ptr<Env> env_;
  std::vector<int> indices_;                 // global call indices this engine owns
  std::vector<std::unique_ptr<Call>> calls_; // parallel to indices_
  size_t moCalls_ = 0;                       // calls_[0, moCalls_) are originated; MT calls follow
  size_t nextToStart_ = 0;
  const IncomingCall* incoming_ = nullptr;   // set while an MT call is constructed (its signalling)
  int64_t incomingAt_ = 0;                   // when that `incoming` arrived
  bool stopping_ = false;
  bool timedOut_ = false;
};

}  // namespace lg

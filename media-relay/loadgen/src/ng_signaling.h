// Raw mode signalling: loadgen plays both legs over rtpengine's ng protocol (docs/architecture.md
// "rtpengine flags"): offer from the browser -> IMS SDP; answer from the far end (IMS UE) -> browser
// SDP; delete at the end.
#pragma once
#include <random>
#include <string>

#include "bencode.h"
#include "config.h"
#include "ng_client.h"
#include "signaling.h"

namespace lg {

class NgSignaling : public CallSignaling {
 public:
  // call: index and call-id of the call (from-tag lgb<i>, to-tag lgf<i>).
  NgSignaling(SignalingHost& host, NgClient& ng, const Config& cfg, std::mt19937_64& rng, const CallResult& call);
  void start(const std::string& offer, int64_t now) override;
  const char* setupPhase() const override { return state_ == State::Offer ? "ng-offer" : "ng-answer"; }
  std::string setupTimeoutReason() const override { return "setup timeout"; }
  bool mayHoldCall() const override { return state_ != State::Idle; }
  void end(int64_t now) override;
  void onEndTimer(int64_t) override {}  // the ng client times the delete out itself
  void release() override {}
  void report(CallResult& r) const override;

  // The ng commands (docs/loadgen.md "What one call does").
  static BValue offerCommand(const Config& cfg, const std::string& callId, const std::string& fromTag,
                             const std::string& sdp);
  static BValue answerCommand(const Config& cfg, const std::string& callId, const std::string& fromTag,
                              const std::string& toTag, const std::string& sdp);
  static BValue deleteCommand(const std::string& callId, const std::string& fromTag);

 private:
  enum class State { Idle, Offer, Answer, Ending };
  void onOfferReply(bool ok, const BValue& reply, const std::string& err);
  void onAnswerReply(bool ok, const BValue& reply, const std::string& err);

  SignalingHost& host_;
  NgClient& ng_;
  const Config& cfg_;
  std::mt19937_64& rng_;
  std::string callId_, fromTag_, toTag_;
  State state_ = State::Idle;
  int64_t tStart_ = 0, tOfferReply_ = 0, tAnswerSent_ = 0, tAnswerReply_ = 0;
};

}  // namespace lg

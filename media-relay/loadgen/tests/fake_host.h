// Unit-test stand-in for the call (SignalingHost): records what a signalling variant asks of it.
#pragma once
#include <string>
#include <vector>

#include "signaling.h"

namespace lg::testing {

struct FakeHost : SignalingHost {
  CallStage stg = CallStage::Signaling;
  CallResult r;
  std::vector<int64_t> armed;
  std::string remoteSdp, failPhase, failWhy, endedEarly;
  bool finished = false, endedNormally = false;
  uint16_t far = 40000;

  CallStage stage() const override { return stg; }
  CallResult& res() override { return r; }
  void arm(int64_t when) override { armed.push_back(when); }
  void dumpSdp(const std::string&, const std::string&) const override {}
  uint16_t farPort() const override { return far; }
  void onRemoteSdp(const std::string& sdp, int64_t) override {
    remoteSdp = sdp;
    stg = CallStage::Connecting;
  }
  void fail(const std::string& phase, const std::string& why) override {
    failPhase = phase;
    failWhy = why;
    stg = CallStage::Ending;  // as Call::fail: the call is ended remotely (or finished)
  }
  void failHere(const std::string& why) override { fail("(current phase)", why); }
  void endEarly(const std::string& why) override {
    endedEarly = why;
    finish();
  }
  void endNormally() override {
    endedNormally = true;
    finish();
  }
  void finish() override {
    finished = true;
    stg = CallStage::Done;
  }
};

}  // namespace lg::testing

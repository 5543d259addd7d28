// A call's signalling, behind one interface. Two variants:
//   ng_signaling       raw ng toward rtpengine: offer -> answer -> delete (loadgen plays both legs)
//   gateway_signaling  the gateway's browser API: `call` -> `calling`/`answered` -> `hangup` -> `ended`,
//                      or for an incoming call `incoming` -> `answer` -> `ended` (the caller's BYE) / `hangup`
// The call (call.cpp) keeps ICE, DTLS and RTP: its signalling delivers rtpengine's browser-leg SDP,
// fails the call in a signalling phase, and ends the call remotely (delete / hangup) when asked.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "config.h"

namespace lg {

// Where the call is, as its signalling needs to know it.
enum class CallStage {
  Idle,        // not started
  Signaling,   // offer sent, waiting for the browser-leg SDP
  Connecting,  // ICE + DTLS
  Media,       // media or the drain after it
  Ending,      // end() called: waiting for the delete / `ended`
  Done,
};

// The call, as its signalling sees it.
class SignalingHost {
 public:
  virtual ~SignalingHost() = default;
  virtual CallStage stage() const = 0;
  virtual CallResult& res() = 0;                       // the call's report fields
  virtual void arm(int64_t when) = 0;                  // the call's one timer
  virtual void dumpSdp(const std::string& file, const std::string& sdp) const = 0;  // --dump-sdp (call 0)
  virtual uint16_t farPort() const = 0;                // loadgen's own far end (IMS UE) port
  // rtpengine's browser-leg SDP: ICE + DTLS (or plain RTP) start; a bad SDP fails in setupPhase().
  virtual void onRemoteSdp(const std::string& browserSdp, int64_t now) = 0;
  virtual void fail(const std::string& phase, const std::string& why) = 0;
  virtual void failHere(const std::string& why) = 0;   // fail in the phase the call is in
  virtual void endEarly(const std::string& why) = 0;   // ended remotely during media
  virtual void endNormally() = 0;                      // MT: the caller hung up during media (its BYE)
  virtual void finish() = 0;                           // nothing left to do: the call is done

  // The call is done while ending: with `error` unless an earlier error is kept (a hang-up that went unanswered).
  void finishWith(const std::string& error) {
    if (res().error.empty()) res().error = error;
    finish();
  }
  // A hang-up request that could not be written (the socket closed) ends the call with `error`, unless it is done.
  void finishUnsent(const std::string& error) {
    if (stage() != CallStage::Done) finishWith(error);
  }
};

class CallSignaling {
 public:
  virtual ~CallSignaling() = default;
  // Sends the browser offer (MO), or for an incoming call the browser's answer (MT); a send that fails at
  // once fails the call through the host.
  virtual void start(const std::string& offer, int64_t now) = 0;
  // The failure phase while waiting for the browser-leg SDP: ng-offer, ng-answer or gateway.
  virtual const char* setupPhase() const = 0;
  // Why the setup timeout hit in setupPhase().
  virtual std::string setupTimeoutReason() const = 0;
  // rtpengine or the gateway may hold the call: it must be ended remotely (end()).
  virtual bool mayHoldCall() const = 0;
  // Ends the call remotely (ng delete, gateway hangup); host.finish() once that is done or given up.
  virtual void end(int64_t now) = 0;
  // After its media the call leaves the end to the far side (MT: the caller's BYE): waits for it, and
  // ends the call itself (end()) only when it does not come in time. false: end() at once.
  virtual bool awaitRemoteEnd(int64_t) { return false; }
  virtual bool awaitingRemoteEnd() const { return false; }
  // The call's timer fired while Ending.
  virtual void onEndTimer(int64_t now) = 0;
  // The call is done: nothing may reach it any more.
  virtual void release() = 0;
  // Adds this variant's timings (from the offer sent) to the call's report.
  virtual void report(CallResult& r) const = 0;
};

// Makes a call's signalling; the engine picks the variant (ng client or gateway link).
using SignalingFactory = std::function<std::unique_ptr<CallSignaling>(SignalingHost& host, const CallResult& call)>;

}  // namespace lg

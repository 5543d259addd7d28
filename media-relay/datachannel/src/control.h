// The endpoint's control protocol, in the style of rtpengine's ng protocol: one UDP datagram
// "<cookie> <bencoded dictionary>" per command, the reply "<cookie> <bencoded dictionary>" with
// "result": "ok" | "pong" | "error" (+ "error-reason"). A retransmitted command (same cookie) gets the
// cached reply again, not a second execution. Commands: ping, offer, answer, delete, query, list
// (docs/datachannel.md "Control protocol").
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "bencode.h"
#include "sdp.h"
#include "text_bridge.h"

namespace dc {

// What the commands do; the endpoint implements it, the unit test fakes it.
class ControlHandler {
 public:
  virtual ~ControlHandler() = default;
  // Each returns false with *err (a sentence for the caller) on failure.
  virtual bool offer(const std::string& callId, const std::string& sdp, const std::vector<DcMap>& channels,
                     std::string* browserAnswer, std::string* imsOffer, std::string* err) = 0;
  // A call from IMS (MT): the IMS side's offer; *browserOffer is the endpoint's offer toward the browser
  // (the IMS offer's a=dcmap channels, same ids), *imsAnswer its answer to the IMS side.
  virtual bool offerFromIms(const std::string& callId, const std::string& imsSdp, std::string* browserOffer,
                            std::string* imsAnswer, std::string* err) {
    (void)callId, (void)imsSdp, (void)browserOffer, (void)imsAnswer;
    *err = "offers from the IMS side are not supported";
    return false;
  }
  // The answer to the endpoint's offer: the IMS side's (call from the browser) or the browser's (from IMS).
  virtual bool answer(const std::string& callId, const std::string& sdp, std::vector<uint16_t>* accepted,
                      std::string* err) = 0;
  virtual bool remove(const std::string& callId, lg::BValue* finalStats, std::string* err) = 0;
  virtual bool query(const std::string& callId, lg::BValue* stats, std::string* err) = 0;
  virtual std::vector<std::string> calls() const = 0;
  // A text bridge (RFC 8865 T.140 channel <-> RFC 4103 RTP) for a call that has a session: *imsText is
  // an SDP with the m=text section for the IMS side; the answer's terms go into *info.
  virtual bool textOffer(const std::string& callId, const TextBridge::Options& o, std::string* imsText,
                         std::string* err) {
    (void)callId, (void)o, (void)imsText;
    *err = "text bridges are not supported";
    return false;
  }
  virtual bool textAnswer(const std::string& callId, const std::string& imsSdp, lg::BValue* info, std::string* err) {
    (void)callId, (void)imsSdp, (void)info;
    *err = "text bridges are not supported";
    return false;
  }
  // A call from IMS with text and no data-channel section: a new session whose browser leg offers the T.140
  // channel (*browserOffer) and whose text bridge answers the IMS side's m=text (*imsAnswer).
  virtual bool textOfferFromIms(const std::string& callId, const TextBridge::Options& o, const std::string& imsSdp,
                                std::string* browserOffer, std::string* imsAnswer, std::string* err) {
    (void)callId, (void)o, (void)imsSdp, (void)browserOffer, (void)imsAnswer;
    *err = "text offers from the IMS side are not supported";
    return false;
  }
};

// The "channels" list of an offer: dictionaries with id, label, and optionally subprotocol,
// ordered ("yes"/"no"), max-retr, max-time, priority, 3gpp-req-app (TS 24.186).
bool channelsFromBencode(const lg::BValue& list, std::vector<DcMap>* out, std::string* err);

class Control {
 public:
  explicit Control(ControlHandler& h) : h_(h) {}
  // One datagram in, its reply out ("" when the datagram has no cookie: nothing to reply to).
  std::string handle(const std::string& datagram);

 private:
  lg::BValue dispatch(const lg::BValue& cmd);
  lg::BValue textCommand(const lg::BValue& cmd);  // text-offer, text-answer
  ControlHandler& h_;
  std::map<std::string, std::string> replies_;  // cookie -> reply, for retransmissions
  std::deque<std::string> order_;
};

}  // namespace dc

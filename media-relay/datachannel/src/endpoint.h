// The sessions of the endpoint by call-id: what the control protocol's commands act on.
#pragma once
#include <map>
#include <memory>
#include <string>

#include "control.h"
#include "session.h"

namespace dc {

class Endpoint : public ControlHandler {
 public:
  Endpoint(lg::EventLoop& loop, const DtlsContext& dtls, MediaConfig cfg, size_t maxCalls)
      : loop_(loop), dtls_(dtls), cfg_(std::move(cfg)), maxCalls_(maxCalls) {}
  bool offer(const std::string& callId, const std::string& sdp, const std::vector<DcMap>& channels,
             std::string* browserAnswer, std::string* imsOffer, std::string* err) override;
  bool offerFromIms(const std::string& callId, const std::string& imsSdp, std::string* browserOffer,
                    std::string* imsAnswer, std::string* err) override;
  bool answer(const std::string& callId, const std::string& sdp, std::vector<uint16_t>* accepted,
              std::string* err) override;
  bool remove(const std::string& callId, lg::BValue* finalStats, std::string* err) override;
  bool query(const std::string& callId, lg::BValue* stats, std::string* err) override;
  std::vector<std::string> calls() const override;
  bool textOffer(const std::string& callId, const TextBridge::Options& o, std::string* imsText,
                 std::string* err) override;
  bool textAnswer(const std::string& callId, const std::string& imsSdp, lg::BValue* info, std::string* err) override;
  bool textOfferFromIms(const std::string& callId, const TextBridge::Options& o, const std::string& imsSdp,
                        std::string* browserOffer, std::string* imsAnswer, std::string* err) override;
  void tick();
  bool idle() const { return sessions_.empty(); }

 private:
  // A new session for callId, or null with *err (already there, or at the limit).
  std::unique_ptr<Session> fresh(const std::string& callId, std::string* err);
  lg::EventLoop& loop_;
  const DtlsContext& dtls_;
  MediaConfig cfg_;
  size_t maxCalls_;
  std::map<std::string, std::unique_ptr<Session>> sessions_;
};

}  // namespace dc

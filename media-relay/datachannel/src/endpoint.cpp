#include "endpoint.h"

#include <cstdio>

namespace dc {

std::unique_ptr<Session> Endpoint::fresh(const std::string& callId, std::string* err) {
  if (sessions_.count(callId)) {
    *err = "call " + callId + " already has a data-channel session (delete it first; re-offers are not supported yet)";
    return nullptr;
  }
  if (sessions_.size() >= maxCalls_) {
    *err = "the endpoint is at its limit of " + std::to_string(maxCalls_) + " sessions";
    return nullptr;
  }
  return std::make_unique<Session>(callId, loop_, dtls_, cfg_);
}

bool Endpoint::offer(const std::string& callId, const std::string& sdp, const std::vector<DcMap>& channels,
                     std::string* browserAnswer, std::string* imsOffer, std::string* err) {
  auto s = fresh(callId, err);
  if (!s || !s->offer(sdp, channels, browserAnswer, imsOffer, err)) return false;
  std::fprintf(stderr, "call %s: offer from the browser, %zu negotiated channel(s) added\n", callId.c_str(), channels.size());
  sessions_[callId] = std::move(s);
  return true;
}

bool Endpoint::offerFromIms(const std::string& callId, const std::string& imsSdp, std::string* browserOffer,
                            std::string* imsAnswer, std::string* err) {
  auto s = fresh(callId, err);
  if (!s || !s->offerFromIms(imsSdp, browserOffer, imsAnswer, err)) return false;
  std::fprintf(stderr, "call %s: offer from the IMS side\n", callId.c_str());
  sessions_[callId] = std::move(s);
  return true;
}

bool Endpoint::answer(const std::string& callId, const std::string& sdp, std::vector<uint16_t>* accepted,
                      std::string* err) {
  auto it = sessions_.find(callId);
  if (it == sessions_.end()) {
    *err = "unknown call-id " + callId;
    return false;
  }
  if (!it->second->answer(sdp, accepted, err)) return false;
  std::fprintf(stderr, "call %s: answer, %zu channel(s) accepted\n", callId.c_str(), accepted->size());
  return true;
}

bool Endpoint::remove(const std::string& callId, lg::BValue* finalStats, std::string* err) {
  auto it = sessions_.find(callId);
  if (it == sessions_.end()) {
    *err = "unknown call-id " + callId;
    return false;
  }
  *finalStats = it->second->stats();
  sessions_.erase(it);
  std::fprintf(stderr, "call %s: deleted\n", callId.c_str());
  return true;
}

bool Endpoint::query(const std::string& callId, lg::BValue* stats, std::string* err) {
  auto it = sessions_.find(callId);
  if (it == sessions_.end()) {
    *err = "unknown call-id " + callId;
    return false;
  }
  *stats = it->second->stats();
  return true;
}

std::vector<std::string> Endpoint::calls() const {
  std::vector<std::string> out;
  for (const auto& [id, s] : sessions_) out.push_back(id);
  return out;
}

bool Endpoint::textOffer(const std::string& callId, const TextBridge::Options& o, std::string* imsText,
                         std::string* err) {
  auto it = sessions_.find(callId);
  if (it == sessions_.end()) {
    *err = "unknown call-id " + callId + " (a text bridge joins the call's data-channel session: offer first)";
    return false;
  }
  if (!it->second->textOffer(loop_, o, imsText, err)) return false;
  std::fprintf(stderr, "call %s: text offer, port %d, T.140 channel %s\n", callId.c_str(), it->second->text()->port(),
               o.channel >= 0 ? std::to_string(o.channel).c_str() : "by DCEP");
  return true;
}

bool Endpoint::textAnswer(const std::string& callId, const std::string& imsSdp, lg::BValue* info, std::string* err) {
  auto it = sessions_.find(callId);
  if (it == sessions_.end()) {
    *err = "unknown call-id " + callId;
    return false;
  }
  if (!it->second->textAnswer(imsSdp, err)) return false;
  const TextBridge* t = it->second->text();
  (*info)["redundancy"] = t->generations();
  (*info)["t140-pt"] = t->sendT140Pt();
  if (t->sendRedPt() >= 0) (*info)["red-pt"] = t->sendRedPt();
  return true;
}

bool Endpoint::textOfferFromIms(const std::string& callId, const TextBridge::Options& o, const std::string& imsSdp,
                                std::string* browserOffer, std::string* imsAnswer, std::string* err) {
  if (auto it = sessions_.find(callId); it != sessions_.end()) {  // the IMS offer had m=application too
    if (!it->second->textOfferFromIms(loop_, o, imsSdp, browserOffer, imsAnswer, err)) return false;
    std::fprintf(stderr, "call %s: text offer from the IMS side joins its data channels, port %d, T.140 channel %d\n",
                 callId.c_str(), it->second->text()->port(), o.channel);
    return true;
  }
  auto s = fresh(callId, err);
  if (!s || !s->textOfferFromIms(loop_, o, imsSdp, browserOffer, imsAnswer, err)) return false;
  std::fprintf(stderr, "call %s: text offer from the IMS side, port %d, T.140 channel %d offered to the browser\n",
               callId.c_str(), s->text()->port(), o.channel);
  sessions_[callId] = std::move(s);
  return true;
}

void Endpoint::tick() {
  for (auto& [id, s] : sessions_) s->tick();
}

}  // namespace dc

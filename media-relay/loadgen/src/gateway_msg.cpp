#include "gateway_msg.h"

#include <nlohmann/json.hpp>

namespace lg::gw {

namespace {
std::string str(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}
}  // namespace

std::vector<std::string> wsProtocols(const std::string& token) { return {"lab.v1", "lab.token." + token}; }

std::string loginBody(const std::string& user, const std::string& password) {
  return nlohmann::json{{"user", user}, {"password", password}}.dump();
}

bool parseLogin(const http::Response& r, std::string& token, std::string& wsUrl, std::string* err) {
  nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
  if (r.status != 201) {
    std::string what = "login failed: HTTP " + std::to_string(r.status);
    if (j.is_object()) {
      if (!str(j, "code").empty()) what += " " + str(j, "code");
      if (!str(j, "message").empty()) what += " (" + str(j, "message") + ")";
    }
    if (err) *err = what;
    return false;
  }
  if (!j.is_object() || str(j, "token").empty() || str(j, "wsUrl").empty()) {
    if (err) *err = "login reply lacks token/wsUrl: " + r.body.substr(0, 120);
    return false;
  }
  token = str(j, "token");
  wsUrl = str(j, "wsUrl");
  return true;
}

std::string callMessage(const std::string& to, const std::string& sdp) {
  return nlohmann::json{{"type", "call"}, {"to", to}, {"sdp", sdp}}.dump();
}

std::string hangupMessage(const std::string& callId) {
  return nlohmann::json{{"type", "hangup"}, {"callId", callId}}.dump();
}

std::string answerMessage(const std::string& callId, const std::string& sdp) {
  nlohmann::json j{{"type", "answer"}, {"callId", callId}};
  if (!sdp.empty()) j["sdp"] = sdp;
  return j.dump();
}

std::string mediaMessage(const std::string& callId, const std::string& sdp) {
  return nlohmann::json{{"type", "media"}, {"callId", callId}, {"sdp", sdp}}.dump();
}

std::string mediaReportMessage(const std::string& callId, uint64_t packetsReceived) {
  return nlohmann::json{{"type", "media-report"}, {"callId", callId}, {"packetsReceived", packetsReceived}}.dump();
}

bool parseEvent(const std::string& text, Event& out, std::string* err) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string()) {
    if (err) *err = "gateway message is not a JSON object with a string 'type': " + text.substr(0, 80);
    return false;
  }
  out = {};
  out.type = j["type"].get<std::string>();
  out.callId = str(j, "callId");
  out.to = str(j, "to");
  out.from = str(j, "from");
  auto pc = j.find("preconditions");
  out.preconditions = pc != j.end() && pc->is_boolean() && pc->get<bool>();
  out.sdp = str(j, "sdp");
  out.reason = str(j, "reason");
  out.code = str(j, "code");
  out.message = str(j, "message");
  auto sc = j.find("sipCode");
  if (sc != j.end() && sc->is_number_integer()) out.sipCode = sc->get<int>();
  return true;
}

}  // namespace lg::gw

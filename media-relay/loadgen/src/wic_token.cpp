#include "wic_token.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <ctime>

namespace lg::wic {

namespace {
std::string str(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}
}  // namespace

std::string requestBody(const std::string& user, const std::string& password) {
  return nlohmann::json{{"user", user}, {"password", password}}.dump();
}

bool parseReply(const http::Response& r, Token& out, std::string* err) {
  nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
  if (r.status != 201) {
    std::string what = "access token refused: HTTP " + std::to_string(r.status);
    if (j.is_object()) {
      if (!str(j, "code").empty()) what += " " + str(j, "code");
      if (!str(j, "message").empty()) what += " (" + str(j, "message") + ")";
    }
    if (err) *err = what;
    return false;
  }
  if (!j.is_object() || str(j, "accessToken").empty() || str(j, "impu").empty() || str(j, "domain").empty()) {
    if (err) *err = "access token reply lacks accessToken/impu/domain: " + r.body.substr(0, 120);
    return false;
  }
  if (str(j, "tokenType") != "Bearer") {
    if (err) *err = "access token of type '" + str(j, "tokenType") + "', expected Bearer";
    return false;
  }
  out.accessToken = str(j, "accessToken");
  out.impu = str(j, "impu");
  out.domain = str(j, "domain");
  out.wsUrl = str(j, "wsUrl");
  out.expiresAt = str(j, "expiresAt");
  return true;
}

bool secondsUntil(const std::string& iso, double& seconds) {
  std::tm tm{};
  const char* rest = strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (!rest) return false;
  double frac = 0;
  if (*rest == '.') {
    char* end = nullptr;
    frac = std::strtod(rest, &end);
    rest = end;
  }
  if (std::string(rest) != "Z") return false;
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  seconds = static_cast<double>(timegm(&tm)) + frac - (static_cast<double>(now.tv_sec) + now.tv_nsec / 1e9);
  return true;
}

bool fetch(const http::Url& base, const std::string& user, const std::string* password, const std::string& current,
           Token& out, int timeoutMs, std::string* err) {
  http::Response r;
  std::string path = base.path + "/api/v1/wic-tokens";
  bool sent = password ? http::request(base, "POST", path, requestBody(user, *password), r, timeoutMs, err)
                       : http::request(base, "POST", path, "", r, timeoutMs, err, "Authorization: Bearer " + current + "\r\n");
  return sent && parseReply(r, out, err);
}

}  // namespace lg::wic

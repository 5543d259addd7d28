// The WAF side of loadgen's SIP-over-WebSocket access (TS 24.371 §7.2; docs/security.md "WIC access tokens"): the
// access token comes from the gateway as it comes for the page's JsSIP client, `POST /api/v1/wic-tokens {user,
// password}` -> 201 {accessToken, tokenType, expiresAt, impu, domain, wsUrl}; a fresh one for the same login with
// `Authorization: Bearer <token>` and no body.
#pragma once
#include <string>

#include "http.h"

namespace lg::wic {

struct Token {
  std::string accessToken, impu, domain, wsUrl;  // wsUrl "" when the gateway names no eP-CSCF (lab.wic.ws-url)
  std::string expiresAt;                        // ISO-8601, as the gateway wrote it
};

std::string requestBody(const std::string& user, const std::string& password);
// 201 with accessToken, tokenType Bearer, impu and domain -> true; anything else false + a one-line reason
// (the gateway's code and message when it sent them).
bool parseReply(const http::Response& r, Token& out, std::string* err);
// Seconds from now (the system clock) to an ISO-8601 UTC instant as the gateway writes it (Instant.toString():
// 2026-11-27T12:05:00Z, fractions allowed); false when it does not parse.
bool secondsUntil(const std::string& isoUtc, double& seconds);

// POST /api/v1/wic-tokens on base (login, or refresh when password is null with the current token).
bool fetch(const http::Url& base, const std::string& user, const std::string* password, const std::string& current,
           Token& out, int timeoutMs, std::string* err);

}  // namespace lg::wic

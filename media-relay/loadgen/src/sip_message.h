// SIP messages for loadgen's SIP-over-WebSocket access (RFC 7118; docs/loadgen.md "SIP over WebSocket"): one
// whole message per WebSocket text frame (RFC 7118 §5.1), so parsing is the start line, the header fields
// (folded lines joined, compact forms expanded: RFC 3261 §7.3.3) and a body of Content-Length bytes. Writing
// puts Content-Length last. Enough for REGISTER, INVITE/ACK/BYE/CANCEL and their responses; not a general stack.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace lg::sip {

struct Message {
  bool request = false;
  std::string method, uri;                 // request line
  int status = 0;                          // status line
  std::string reason;
  std::vector<std::pair<std::string, std::string>> headers;  // in order; names as written (compact expanded)
  std::string body;

  // The first value of a header (case-insensitive name), "" when absent.
  std::string header(const std::string& name) const;
  // Every value of a header, comma-joined lists split (Via, Route, Record-Route, Contact, ...), in order.
  std::vector<std::string> all(const std::string& name) const;
  bool has(const std::string& name) const;
  void add(const std::string& name, const std::string& value) { headers.emplace_back(name, value); }
  void remove(const std::string& name);
  // CSeq number and method ("" / 0 when missing or malformed).
  unsigned long cseq() const;
  std::string cseqMethod() const;
  std::string callId() const { return header("Call-ID"); }
  // The message as sent: start line, headers, Content-Length (and Content-Type only when the caller added it), body.
  std::string str() const;
};

// false + err for text that is no SIP message (bad start line, a header line without ':', a body shorter than
// Content-Length, or no Call-ID/CSeq/From/To/Via).
bool parse(const std::string& text, Message& out, std::string* err);

// Parts of header values.
std::string param(const std::string& value, const std::string& name);   // ";name=value" outside <>, "" if absent
std::string tag(const std::string& nameAddr);                           // the ;tag= of a From/To value
std::string uri(const std::string& nameAddr);                           // the URI inside <>, else up to ';'
std::string userOf(const std::string& uri);                             // "alice" of sip:alice@host
std::string hostOf(const std::string& uri);                             // "host[:port]" of sip:alice@host;p
std::vector<std::string> splitList(const std::string& value);           // at commas outside <> and quotes

// Random token of n lowercase letters and digits (tags, Call-ID, branch suffixes); OpenSSL's RAND_bytes.
std::string token(size_t n);
// A new Via branch (the RFC 3261 magic cookie z9hG4bK first).
inline std::string branch() { return "z9hG4bK" + token(16); }

}  // namespace lg::sip

#include "sip_message.h"

#include <openssl/rand.h>
#include <strings.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace lg::sip {

namespace {

bool same(const std::string& a, const std::string& b) { return strcasecmp(a.c_str(), b.c_str()) == 0; }

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// RFC 3261 §7.3.3 compact forms (and RFC 3515/3841/4028/3891 ones a peer may use)
std::string expand(const std::string& name) {
  if (name.size() != 1) return name;
  switch (std::tolower(static_cast<unsigned char>(name[0]))) {
    case 'i': return "Call-ID";
    case 'm': return "Contact";
    case 'e': return "Content-Encoding";
    case 'l': return "Content-Length";
    case 'c': return "Content-Type";
    case 'f': return "From";
    case 's': return "Subject";
    case 'k': return "Supported";
    case 't': return "To";
    case 'v': return "Via";
    case 'o': return "Event";
    case 'r': return "Refer-To";
    case 'x': return "Session-Expires";
    case 'u': return "Allow-Events";
    default: return name;
  }
}

// Header fields whose value is never a comma-separated list (a comma inside is part of the value).
bool singleValued(const std::string& name) {
  static const char* kSingle[] = {"Call-ID", "CSeq", "From", "To", "Content-Length", "Content-Type", "Max-Forwards",
                                  "Authorization", "Proxy-Authorization", "WWW-Authenticate", "Proxy-Authenticate",
                                  "Date", "Subject", "User-Agent", "Server", "Expires"};
  for (const char* s : kSingle)
    if (same(name, s)) return true;
  return false;
}

}  // namespace

std::string Message::header(const std::string& name) const {
  for (const auto& [n, v] : headers)
    if (same(n, name)) {
      if (singleValued(name)) return v;
      std::vector<std::string> parts = splitList(v);
      return parts.empty() ? v : parts.front();
    }
  return "";
}

std::vector<std::string> Message::all(const std::string& name) const {
  std::vector<std::string> out;
  for (const auto& [n, v] : headers) {
    if (!same(n, name)) continue;
    if (singleValued(name)) {
      out.push_back(v);
    } else {
      for (auto& part : splitList(v)) out.push_back(part);
    }
  }
  return out;
}

bool Message::has(const std::string& name) const {
  return std::any_of(headers.begin(), headers.end(), [&](const auto& h) { return same(h.first, name); });
}

void Message::remove(const std::string& name) {
  headers.erase(std::remove_if(headers.begin(), headers.end(), [&](const auto& h) { return same(h.first, name); }),
                headers.end());
}

unsigned long Message::cseq() const {
  std::string v = header("CSeq");
  char* end = nullptr;
  unsigned long n = std::strtoul(v.c_str(), &end, 10);
  return end == v.c_str() ? 0 : n;
}

std::string Message::cseqMethod() const {
  std::string v = trim(header("CSeq"));
  size_t sp = v.find_first_of(" \t");
  return sp == std::string::npos ? "" : trim(v.substr(sp));
}

std::string Message::str() const {
  std::string out = request ? method + " " + uri + " SIP/2.0\r\n" : "SIP/2.0 " + std::to_string(status) + " " + reason + "\r\n";
  for (const auto& [n, v] : headers)
    if (!same(n, "Content-Length")) out += n + ": " + v + "\r\n";
  out += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out += body;
  return out;
}

bool parse(const std::string& text, Message& out, std::string* err) {
  auto fail = [&](const std::string& why) {
    if (err) *err = why;
    return false;
  };
  out = Message{};
  size_t headEnd = text.find("\r\n\r\n");
  size_t sepLen = 4;
  if (headEnd == std::string::npos) {
    headEnd = text.find("\n\n");  // bare LF line ends (RFC 3261 §7.5 lets a receiver accept them)
    sepLen = 2;
  }
  if (headEnd == std::string::npos) return fail("no empty line after the header fields");
  // lines of the head, CRLF or LF
  std::vector<std::string> lines;
  for (size_t p = 0; p < headEnd;) {
    size_t e = text.find('\n', p);
    if (e == std::string::npos || e > headEnd) e = headEnd;
    std::string line = text.substr(p, e - p);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // continuation line (RFC 3261 §7.3.1 folding): joined to the previous one
    if (!lines.empty() && !line.empty() && (line[0] == ' ' || line[0] == '\t')) lines.back() += " " + trim(line);
    else lines.push_back(line);
    p = e + 1;
  }
  if (lines.empty() || lines[0].empty()) return fail("empty start line");
  const std::string& start = lines[0];
  if (start.rfind("SIP/2.0 ", 0) == 0) {
    size_t sp = start.find(' ', 8);
    std::string code = start.substr(8, sp == std::string::npos ? std::string::npos : sp - 8);
    if (code.size() != 3 || !std::all_of(code.begin(), code.end(), ::isdigit)) return fail("bad status line '" + start + "'");
    out.status = std::atoi(code.c_str());
    if (out.status < 100) return fail("bad status code " + code);
    out.reason = sp == std::string::npos ? "" : start.substr(sp + 1);
  } else {
    size_t a = start.find(' '), b = start.rfind(' ');
    if (a == std::string::npos || b == a || start.substr(b + 1) != "SIP/2.0") return fail("bad request line '" + start + "'");
    out.request = true;
    out.method = start.substr(0, a);
    out.uri = start.substr(a + 1, b - a - 1);
    if (out.method.empty() || out.uri.empty() || out.uri.find(' ') != std::string::npos)
      return fail("bad request line '" + start + "'");
  }
  for (size_t i = 1; i < lines.size(); ++i) {
    size_t c = lines[i].find(':');
    if (c == std::string::npos || c == 0) return fail("header line without a name: '" + lines[i] + "'");
    out.headers.emplace_back(expand(trim(lines[i].substr(0, c))), trim(lines[i].substr(c + 1)));
  }
  std::string body = text.substr(headEnd + sepLen);
  if (out.has("Content-Length")) {
    std::string cl = out.header("Content-Length");
    char* end = nullptr;
    unsigned long n = std::strtoul(cl.c_str(), &end, 10);
    if (cl.empty() || *end) return fail("bad Content-Length '" + cl + "'");
    if (n > body.size()) return fail("body shorter than Content-Length " + cl);
    body.resize(n);
  }
  out.body = body;
  for (const char* must : {"Call-ID", "CSeq", "From", "To", "Via"})
    if (!out.has(must)) return fail(std::string("no ") + must + " header");
  if (out.cseq() == 0 && out.header("CSeq").find_first_of("0123456789") == std::string::npos) return fail("bad CSeq");
  if (out.request && out.cseqMethod() != out.method && out.method != "ACK" && out.method != "CANCEL")
    return fail("CSeq method '" + out.cseqMethod() + "' is not the request's " + out.method);
  return true;
}

std::vector<std::string> splitList(const std::string& value) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  int angle = 0;
  for (size_t i = 0; i < value.size(); ++i) {
    char ch = value[i];
    if (quoted) {
      if (ch == '\\' && i + 1 < value.size()) {
        cur += ch;
        ch = value[++i];
      } else if (ch == '"') {
        quoted = false;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == '<') {
      ++angle;
    } else if (ch == '>' && angle > 0) {
      --angle;
    } else if (ch == ',' && angle == 0) {
      if (!trim(cur).empty()) out.push_back(trim(cur));
      cur.clear();
      continue;
    }
    cur += ch;
  }
  if (!trim(cur).empty()) out.push_back(trim(cur));
  return out;
}

std::string param(const std::string& value, const std::string& name) {
  // parameters after the name-addr's '>' (or the whole value when it has none)
  size_t from = value.rfind('>');
  from = from == std::string::npos ? 0 : from + 1;
  size_t p = from;
  while ((p = value.find(';', p)) != std::string::npos) {
    ++p;
    size_t end = value.find(';', p);
    std::string kv = trim(value.substr(p, end == std::string::npos ? std::string::npos : end - p));
    size_t eq = kv.find('=');
    if (same(trim(kv.substr(0, eq)), name)) return eq == std::string::npos ? "" : trim(kv.substr(eq + 1));
  }
  return "";
}

std::string tag(const std::string& nameAddr) { return param(nameAddr, "tag"); }

std::string uri(const std::string& nameAddr) {
  size_t lt = nameAddr.find('<');
  if (lt != std::string::npos) {
    size_t gt = nameAddr.find('>', lt);
    return nameAddr.substr(lt + 1, gt == std::string::npos ? std::string::npos : gt - lt - 1);
  }
  return trim(nameAddr.substr(0, nameAddr.find(';')));
}

std::string userOf(const std::string& u) {
  size_t colon = u.find(':');
  size_t at = u.find('@');
  if (colon == std::string::npos || at == std::string::npos || at < colon) return "";
  return u.substr(colon + 1, at - colon - 1);
}

std::string hostOf(const std::string& u) {
  size_t at = u.find('@');
  size_t start = at == std::string::npos ? u.find(':') : at;
  if (start == std::string::npos) return "";
  std::string rest = u.substr(start + 1);
  return rest.substr(0, rest.find_first_of(";?>"));
}

std::string token(size_t n) {
  static const char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string out(n, 'a');
  std::vector<unsigned char> raw(n);
  if (RAND_bytes(raw.data(), static_cast<int>(n)) != 1)
    for (auto& b : raw) b = static_cast<unsigned char>(std::rand());
  for (size_t i = 0; i < n; ++i) out[i] = kAlphabet[raw[i] % 36];
  return out;
}

}  // namespace lg::sip

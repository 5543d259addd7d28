#include "text_sdp.h"

#include <cstdlib>
#include <sstream>
#include <vector>

namespace dc {

namespace {
bool startsWith(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }
std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
bool number(const std::string& s, long max, long* out) {
  if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos) return false;
  *out = std::strtol(s.c_str(), nullptr, 10);
  return *out <= max;
}
}  // namespace

std::optional<TextMedia> parseText(const std::string& sdp, std::string* err) {
  std::istringstream in(sdp);
  std::string l, sessionConn;
  bool sessionIp6 = false, inMedia = false, inText = false, found = false, haveConn = false;
  TextMedia t;
  std::vector<std::string> fmts;
  std::string redFmtp;
  while (std::getline(in, l)) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
    if (startsWith(l, "m=")) {
      if (found) break;  // the first m=text only
      inMedia = true;
      std::istringstream m(l.substr(2));
      std::string type, port;
      m >> type >> port >> t.proto;
      inText = type == "text";
      if (!inText) continue;
      found = true;
      long p;
      if (!number(port, 65535, &p)) {
        *err = "m=text has a bad port \"" + port + "\"";
        return std::nullopt;
      }
      t.port = static_cast<int>(p);
      for (std::string f; m >> f;) fmts.push_back(f);
      continue;
    }
    bool conn = startsWith(l, "c=IN IP4 ") || startsWith(l, "c=IN IP6 ");
    if (!inMedia) {
      if (conn) {
        sessionConn = l.substr(9);
        sessionIp6 = l[7] == '6';
      }
      continue;
    }
    if (!inText) continue;
    if (conn) {
      t.connAddr = l.substr(9);
      t.ipv6 = l[7] == '6';
      haveConn = true;
    } else if (startsWith(l, "a=rtpmap:")) {
      std::istringstream r(l.substr(9));
      std::string pt, enc;
      r >> pt >> enc;
      long n;
      if (!number(pt, 127, &n)) continue;
      enc = lower(enc);
      if (enc == "t140/1000") t.t140Pt = static_cast<int>(n);
      else if (enc == "red/1000") t.redPt = static_cast<int>(n);
    } else if (startsWith(l, "a=fmtp:")) {
      std::string v = l.substr(7);
      size_t sp = v.find(' ');
      if (sp != std::string::npos) redFmtp += v.substr(0, sp) + ' ' + v.substr(sp + 1) + '\n';
    } else if (l == "a=sendrecv" || l == "a=sendonly" || l == "a=recvonly" || l == "a=inactive") {
      t.direction = l.substr(2);
    }
  }
  if (!found) {
    *err = "no m=text section";
    return std::nullopt;
  }
  if (!haveConn) {
    t.connAddr = sessionConn;
    t.ipv6 = sessionIp6;
  }
  size_t slash = t.connAddr.find('/');
  if (slash != std::string::npos) t.connAddr.resize(slash);
  if (t.rejected()) return t;
  auto offered = [&](int pt) {
    for (const auto& f : fmts)
      if (f == std::to_string(pt)) return true;
    return false;
  };
  if (t.t140Pt >= 0 && !offered(t.t140Pt)) t.t140Pt = -1;
  if (t.redPt >= 0 && !offered(t.redPt)) t.redPt = -1;
  // the fmtp lines of t140 (cps=) and red (its block formats)
  std::istringstream f(redFmtp);
  for (std::string line; std::getline(f, line);) {
    size_t sp = line.find(' ');
    long pt;
    if (!number(line.substr(0, sp), 127, &pt)) continue;
    std::string v = line.substr(sp + 1);
    if (pt == t.t140Pt) {
      size_t at = v.find("cps=");
      long n;
      if (at != std::string::npos) {
        std::string num = v.substr(at + 4);
        num = num.substr(0, num.find_first_not_of("0123456789"));
        if (number(num, 100000, &n)) t.cps = static_cast<int>(n);
      }
    } else if (pt == t.redPt) {
      int blocks = 1;
      for (char c : v) blocks += c == '/';
      t.redGenerations = blocks - 1;
    }
  }
  if (t.connAddr.empty()) {
    *err = "the m=text section has no c= address";
    return std::nullopt;
  }
  if (t.t140Pt < 0) {
    *err = "the m=text section has no t140/1000 format (RFC 4103)";
    return std::nullopt;
  }
  return t;
}

std::string produceText(const LocalText& t) {
  std::ostringstream o;
  o << "v=0\r\n"
    << "o=- " << t.sessionId << " 1 IN IP4 " << t.addr << "\r\n"
    << "s=-\r\n"
    << "t=0 0\r\n"
    << "m=text " << t.port << " RTP/AVP";
  if (t.redPt >= 0) o << ' ' << t.redPt;
  o << ' ' << t.t140Pt << "\r\n"
    << "c=IN IP4 " << t.addr << "\r\n";
  if (t.redPt >= 0) {
    o << "a=rtpmap:" << t.redPt << " red/1000\r\n"
      << "a=fmtp:" << t.redPt << ' ' << t.t140Pt;
    for (int i = 0; i < t.generations; ++i) o << '/' << t.t140Pt;
    o << "\r\n";
  }
  o << "a=rtpmap:" << t.t140Pt << " t140/1000\r\n"
    << "a=fmtp:" << t.t140Pt << " cps=" << t.cps << "\r\n"
    << "a=sendrecv\r\n";
  return o.str();
}

}  // namespace dc

#include "sdp.h"

#include <cstdlib>
#include <sstream>

namespace dc {

namespace {

std::vector<std::string> lines(const std::string& sdp) {
  std::vector<std::string> out;
  std::istringstream in(sdp);
  std::string l;
  while (std::getline(in, l)) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
    if (!l.empty()) out.push_back(l);
  }
  return out;
}

bool startsWith(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

bool parseUint(const std::string& s, unsigned long max, unsigned long& out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 10) return false;
  out = std::strtoul(s.c_str(), nullptr, 10);
  return out <= max;
}

// The session-level values that a media section inherits.
struct Common {
  std::string conn, ufrag, pwd, fpHash, fp, setup;
  bool lite = false;
};

// Applies one attribute line shared by session and media level; true when it was one of them.
bool commonAttr(const std::string& l, Common& c) {
  if (startsWith(l, "c=IN IP4 ") || startsWith(l, "c=IN IP6 ")) {
    c.conn = trim(l.substr(9));
    size_t slash = c.conn.find('/');
    if (slash != std::string::npos) c.conn.resize(slash);
  } else if (startsWith(l, "a=ice-ufrag:")) {
    c.ufrag = trim(l.substr(12));
  } else if (startsWith(l, "a=ice-pwd:")) {
    c.pwd = trim(l.substr(10));
  } else if (l == "a=ice-lite") {
    c.lite = true;
  } else if (startsWith(l, "a=fingerprint:")) {
    std::string v = trim(l.substr(14));
    size_t sp = v.find(' ');
    if (sp == std::string::npos) return true;
    c.fpHash = v.substr(0, sp);
    for (auto& ch : c.fpHash) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    c.fp = trim(v.substr(sp + 1));
  } else if (startsWith(l, "a=setup:")) {
    c.setup = trim(l.substr(8));
  } else {
    return false;
  }
  return true;
}

}  // namespace

std::string DcMap::reqApp() const {
  static const std::string kKey = "3gpp-req-app:";
  for (const auto& a : dcsa)
    if (a.rfind(kKey, 0) == 0) return a.substr(kKey.size());
  return "";
}

std::optional<DcMap> parseDcmap(const std::string& value, std::string* err) {
  auto bad = [&](const std::string& why) -> std::optional<DcMap> {
    if (err) *err = "a=dcmap:" + value + ": " + why;
    return std::nullopt;
  };
  DcMap m;
  size_t sp = value.find(' ');
  unsigned long id;
  if (!parseUint(value.substr(0, sp), 65534, id)) return bad("the stream id is not a number 0..65534");
  m.id = static_cast<uint16_t>(id);
  std::string opts = sp == std::string::npos ? "" : value.substr(sp + 1);
  bool haveRetr = false, haveTime = false;
  size_t pos = 0;
  while (pos < opts.size()) {
    // split on ';' outside quotes
    size_t end = pos;
    bool quoted = false;
    while (end < opts.size() && (quoted || opts[end] != ';')) {
      if (opts[end] == '"') quoted = !quoted;
      ++end;
    }
    std::string opt = trim(opts.substr(pos, end - pos));
    pos = end + 1;
    if (opt.empty()) continue;
    size_t eq = opt.find('=');
    if (eq == std::string::npos) return bad("option \"" + opt + "\" has no '='");
    std::string k = opt.substr(0, eq), v = opt.substr(eq + 1);
    unsigned long n;
    if (k == "label" || k == "subprotocol") {
      if (v.size() < 2 || v.front() != '"' || v.back() != '"') return bad(k + " is not a quoted string");
      std::string s = v.substr(1, v.size() - 2);
      // RFC 8864 §5.1.1.4: percent-encoding of characters that cannot appear in the quoted string
      std::string dec;
      for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() + 0 && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
          dec += static_cast<char>(std::strtol(s.substr(i + 1, 2).c_str(), nullptr, 16));
          i += 2;
        } else {
          dec += s[i];
        }
      }
      (k == "label" ? m.params.label : m.params.protocol) = dec;
    } else if (k == "ordered") {
      if (v != "true" && v != "false") return bad("ordered is neither true nor false");
      m.params.ordered = v == "true";
    } else if (k == "max-retr") {
      if (!parseUint(v, 0xffffffffUL, n)) return bad("max-retr is not a number");
      m.params.reliability = Reliability::Rexmit;
      m.params.reliabilityParam = static_cast<uint32_t>(n);
      haveRetr = true;
    } else if (k == "max-time") {
      if (!parseUint(v, 0xffffffffUL, n)) return bad("max-time is not a number");
      m.params.reliability = Reliability::Timed;
      m.params.reliabilityParam = static_cast<uint32_t>(n);
      haveTime = true;
    } else if (k == "priority") {
      if (!parseUint(v, 0xffff, n)) return bad("priority is not a number 0..65535");
      m.params.priority = static_cast<uint16_t>(n);
    }
    // other options are extensions: ignored (RFC 8864 §5.1.1)
  }
  if (haveRetr && haveTime) return bad("both max-retr and max-time (RFC 8864 §5.1.1.6 allows one)");
  return m;
}

std::string formatDcmap(const DcMap& m) {
  auto quote = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s) {
      if (c == '"' || c == '%' || static_cast<unsigned char>(c) < 0x20) {
        char buf[4];
        std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
        q += buf;
      } else {
        q += c;
      }
    }
    return q + "\"";
  };
  std::string s = std::to_string(m.id) + " label=" + quote(m.params.label);
  if (!m.params.protocol.empty()) s += ";subprotocol=" + quote(m.params.protocol);
  if (m.params.reliability == Reliability::Rexmit) s += ";max-retr=" + std::to_string(m.params.reliabilityParam);
  if (m.params.reliability == Reliability::Timed) s += ";max-time=" + std::to_string(m.params.reliabilityParam);
  if (!m.params.ordered) s += ";ordered=false";
  if (m.params.priority != 256) s += ";priority=" + std::to_string(m.params.priority);
  return s;
}

std::optional<AppMedia> parseApp(const std::string& sdp, std::string* err) {
  auto bad = [&](const std::string& why) -> std::optional<AppMedia> {
    if (err) *err = why;
    return std::nullopt;
  };
  auto ls = lines(sdp);
  if (ls.empty() || !startsWith(ls[0], "v=0")) return bad("not an SDP (no v=0 line first)");
  Common session, media;
  bool inApp = false, found = false, inMedia = false;
  AppMedia app;
  std::vector<std::pair<uint16_t, std::string>> dcsa;
  for (const auto& l : ls) {
    if (startsWith(l, "m=")) {
      if (found) break;  // the first data-channel section only
      inMedia = true;
      std::istringstream m(l.substr(2));
      std::string type, port, proto, fmt;
      m >> type >> port >> proto >> fmt;
      inApp = type == "application" && proto == "UDP/DTLS/SCTP" && fmt == "webrtc-datachannel";
      if (inApp) {
        unsigned long p;
        if (!parseUint(port, 65535, p)) return bad("m=application has a bad port \"" + port + "\"");
        app.port = static_cast<int>(p);
        found = true;
        media = Common{};
      }
      continue;
    }
    if (!inMedia) {
      commonAttr(l, session);
      continue;
    }
    if (!inApp) continue;
    if (commonAttr(l, media)) continue;
    if (startsWith(l, "a=mid:")) {
      app.mid = trim(l.substr(6));
    } else if (startsWith(l, "a=sctp-port:")) {
      unsigned long p;
      if (!parseUint(trim(l.substr(12)), 65535, p) || p == 0) return bad("a=sctp-port is not a port 1..65535");
      app.sctpPort = static_cast<int>(p);
    } else if (startsWith(l, "a=max-message-size:")) {
      unsigned long n;
      if (!parseUint(trim(l.substr(19)), 0xffffffffUL, n)) return bad("a=max-message-size is not a number");
      app.maxMessageSize = n;  // 0 = no limit (RFC 8841 §6)
    } else if (startsWith(l, "a=candidate:")) {
      std::istringstream c(l.substr(12));
      std::string foundation, comp, transport, prio, addr, port, typ, type;
      c >> foundation >> comp >> transport >> prio >> addr >> port >> typ >> type;
      unsigned long p;
      for (auto& ch : transport) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (comp == "1" && transport == "udp" && parseUint(port, 65535, p) && addr.find(".local") == std::string::npos)
        app.candidates.push_back({addr, static_cast<int>(p)});
    } else if (startsWith(l, "a=dcmap:")) {
      auto m = parseDcmap(l.substr(8), err);
      if (!m) return std::nullopt;
      app.dcmaps.push_back(*m);
    } else if (startsWith(l, "a=dcsa:")) {
      std::string v = l.substr(7);
      size_t sp = v.find(' ');
      unsigned long id;
      if (sp == std::string::npos || !parseUint(v.substr(0, sp), 65534, id))
        return bad("a=dcsa:" + v + ": expected \"<stream id> <attribute>\"");
      dcsa.emplace_back(static_cast<uint16_t>(id), trim(v.substr(sp + 1)));
    }
  }
  if (!found) return bad("no m=application UDP/DTLS/SCTP webrtc-datachannel section");
  for (auto& [id, attr] : dcsa) {
    bool matched = false;
    for (auto& m : app.dcmaps)
      if (m.id == id) { m.dcsa.push_back(attr); matched = true; }
    if (!matched) return bad("a=dcsa for stream " + std::to_string(id) + " without its a=dcmap");
  }
  auto pick = [](const std::string& m, const std::string& s) { return m.empty() ? s : m; };
  app.connAddr = pick(media.conn, session.conn);
  app.iceUfrag = pick(media.ufrag, session.ufrag);
  app.icePwd = pick(media.pwd, session.pwd);
  app.iceLite = session.lite || media.lite;
  app.fpHash = pick(media.fpHash, session.fpHash);
  app.fingerprint = pick(media.fp, session.fp);
  app.setup = pick(media.setup, session.setup);
  if (app.rejected()) return app;
  if (app.fingerprint.empty()) return bad("the data-channel section has no a=fingerprint (DTLS needs it)");
  if (app.iceUfrag.empty() != app.icePwd.empty()) return bad("a=ice-ufrag without a=ice-pwd, or the reverse");
  return app;
}

std::string produce(const LocalMedia& m) {
  std::ostringstream o;
  o << "v=0\r\n"
    << "o=- " << m.sessionId << ' ' << m.sessionVersion << " IN IP4 " << m.addr << "\r\n"
    << "s=-\r\n"
    << "t=0 0\r\n"
    << "a=ice-lite\r\n"
    << "m=application " << m.port << " UDP/DTLS/SCTP webrtc-datachannel\r\n"
    << "c=IN IP4 " << m.addr << "\r\n";
  if (!m.mid.empty()) o << "a=mid:" << m.mid << "\r\n";
  o << "a=ice-ufrag:" << m.iceUfrag << "\r\n"
    << "a=ice-pwd:" << m.icePwd << "\r\n"
    << "a=fingerprint:sha-256 " << m.fingerprint << "\r\n"
    << "a=setup:" << m.setup << "\r\n"
    << "a=sctp-port:" << m.sctpPort << "\r\n"
    << "a=max-message-size:" << m.maxMessageSize << "\r\n"
    << "a=candidate:1 1 udp 2130706431 " << m.addr << ' ' << m.port << " typ host\r\n"
    << "a=end-of-candidates\r\n";
  for (const auto& d : m.dcmaps) {
    o << "a=dcmap:" << formatDcmap(d) << "\r\n";
    for (const auto& a : d.dcsa) o << "a=dcsa:" << d.id << ' ' << a << "\r\n";
  }
  return o.str();
}

}  // namespace dc

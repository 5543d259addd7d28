#include "sdp.h"

#include <sstream>

namespace lg::sdp {

namespace {
// The Chromium-shaped WebRTC audio m-section both the offer (MO) and the answer (MT) carry: one host
// candidate on our port, ICE credentials, DTLS fingerprint and role, rtcp-mux, Opus under `pt`.
void webrtcAudio(std::ostringstream& o, uint16_t port, const std::string& ufrag, const std::string& pwd,
                 const std::string& fingerprint, const std::string& setup, const std::string& mid, int pt,
                 uint32_t ssrc) {
  o << "m=audio " << port << " UDP/TLS/RTP/SAVPF " << pt << "\r\n"
    << "c=IN IP4 127.0.0.1\r\n"
    << "a=rtcp:" << port << " IN IP4 127.0.0.1\r\n"
    << "a=candidate:1 1 udp 2122260223 127.0.0.1 " << port << " typ host generation 0\r\n"
    << "a=ice-ufrag:" << ufrag << "\r\n"
    << "a=ice-pwd:" << pwd << "\r\n"
    << "a=fingerprint:sha-256 " << fingerprint << "\r\n"
    << "a=setup:" << setup << "\r\n"
    << "a=mid:" << mid << "\r\n"
    << "a=sendrecv\r\n"
    << "a=rtcp-mux\r\n"
    << "a=rtpmap:" << pt << " opus/48000/2\r\n"
    << "a=fmtp:" << pt << " minptime=10;useinbandfec=1\r\n"
    << "a=ssrc:" << ssrc << " cname:loadgen\r\n";
}
}  // namespace

std::string buildBrowserOffer(const OfferParams& p) {
  // Shaped like Chromium's audio-only offer without BUNDLE (lab-notes: BUNDLE broke media with 10.5).
  std::ostringstream o;
  o << "v=0\r\n"
    << "o=- " << p.sessionId << " 2 IN IP4 127.0.0.1\r\n"
    << "s=-\r\n"
    << "t=0 0\r\n"
    << "a=msid-semantic: WMS loadgen\r\n";
  if (p.plainRtp) {  // A-RTP: an RTP/AVP endpoint, RTCP on port + 1
    o << "m=audio " << p.port << " RTP/AVP 111\r\n"
      << "c=IN IP4 127.0.0.1\r\n"
      << "a=sendrecv\r\n"
      << "a=rtpmap:111 opus/48000/2\r\n"
      << "a=fmtp:111 minptime=10;useinbandfec=1\r\n"
      << "a=ssrc:" << p.ssrc << " cname:loadgen\r\n";
    return o.str();
  }
  webrtcAudio(o, p.port, p.ufrag, p.pwd, p.fingerprint, "actpass", "0", 111, p.ssrc);
  return o.str();
}

std::string buildBrowserAnswer(const AnswerParams& p) {
  std::ostringstream o;
  o << "v=0\r\n"
    << "o=- " << p.sessionId << " 2 IN IP4 127.0.0.1\r\n"
    << "s=-\r\n"
    << "t=0 0\r\n";
  if (p.bundle) o << "a=group:BUNDLE " << p.mid << "\r\n";
  o << "a=msid-semantic: WMS loadgen\r\n";
  webrtcAudio(o, p.port, p.ufrag, p.pwd, p.fingerprint, p.setup, p.mid, p.pt, p.ssrc);
  return o.str();
}

std::string buildFarAnswer(const std::string& addr, uint16_t port, uint64_t sessionId, const FarCodec& codec) {
  std::ostringstream o;
  o << "v=0\r\n"
    << "o=- " << sessionId << " 1 IN IP4 " << addr << "\r\n"
    << "s=-\r\n"
    << "c=IN IP4 " << addr << "\r\n"
    << "t=0 0\r\n"
    << "m=audio " << port << " RTP/AVP " << codec.pt << "\r\n"
    << "a=rtpmap:" << codec.pt << " " << codec.rtpmap << "\r\n";
  if (!codec.fmtp.empty()) o << "a=fmtp:" << codec.pt << " " << codec.fmtp << "\r\n";
  o << "a=sendrecv\r\n";
  return o.str();
}

static bool startsWith(const std::string& s, const char* prefix, std::string& rest) {
  size_t n = std::char_traits<char>::length(prefix);
  if (s.compare(0, n, prefix) != 0) return false;
  rest = s.substr(n);
  return true;
}

bool parseRemote(const std::string& text, Remote& out, std::string* err) {
  std::istringstream in(text);
  std::string line, rest, sessionConn;
  int mLines = 0;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (startsWith(line, "m=", rest)) {
      if (++mLines > 1) break;  // loadgen negotiates one audio stream only
      std::istringstream m(rest);
      std::string media;
      unsigned port = 0;
      m >> media >> port >> out.proto;
      out.port = static_cast<uint16_t>(port);
      if (!(m >> out.firstPt)) out.firstPt = -1;
    } else if (startsWith(line, "c=", rest)) {
      std::istringstream c(rest);
      std::string net, type, addr;
      c >> net >> type >> addr;
      (mLines ? out.connection : sessionConn) = addr;
    } else if (startsWith(line, "a=ice-ufrag:", rest)) {
      out.iceUfrag = rest;
    } else if (startsWith(line, "a=ice-pwd:", rest)) {
      out.icePwd = rest;
    } else if (startsWith(line, "a=fingerprint:", rest)) {
      std::istringstream f(rest);
      std::string hash, fp;
      f >> hash >> fp;
      // Prefer sha-256 when several are listed.
      if (out.fingerprint.empty() || hash == "sha-256") {
        out.fingerprintHash = hash;
        out.fingerprint = fp;
      }
    } else if (startsWith(line, "a=setup:", rest)) {
      out.setup = rest;
    } else if (mLines == 1 && startsWith(line, "a=rtpmap:", rest)) {
      std::istringstream r(rest);
      int pt = -1;
      std::string enc;
      if (r >> pt >> enc) {
        if (pt == out.firstPt && out.firstCodec.empty()) out.firstCodec = enc;
        if (out.opusPt < 0 && (enc == "opus/48000/2" || enc == "opus/48000")) out.opusPt = pt;
      }
    } else if (mLines == 1 && startsWith(line, "a=mid:", rest)) {
      if (out.mid.empty()) out.mid = rest;
    } else if (mLines == 0 && startsWith(line, "a=group:BUNDLE", rest)) {
      out.bundleGroup = true;
    } else if (line == "a=ice-lite") {
      out.iceLite = true;
    } else if (line == "a=rtcp-mux") {
      out.rtcpMux = true;
    } else if (startsWith(line, "a=candidate:", rest)) {
      std::istringstream c(rest);
      Candidate cand;
      unsigned port = 0;
      std::string typ;
      if (c >> cand.foundation >> cand.component >> cand.transport >> cand.priority >> cand.address >>
          port >> typ >> cand.type) {
        cand.port = static_cast<uint16_t>(port);
        out.candidates.push_back(cand);
      }
    }
  }
  if (out.connection.empty()) out.connection = sessionConn;
  if (mLines == 0) {
    if (err) *err = "no m= line";
    return false;
  }
  return true;
}

const Candidate* pickCandidate(const Remote& r) {
  const Candidate* best = nullptr;
  for (const auto& c : r.candidates) {
    bool udp = c.transport == "udp" || c.transport == "UDP";
    if (!udp || c.component != 1 || c.address.find(':') != std::string::npos) continue;
    if (!best || c.priority > best->priority) best = &c;
  }
  return best;
}

bool answererControlsIce(const Remote& offer) { return offer.iceLite; }

std::string answerSetup(const Remote& offer) { return offer.setup == "active" ? "passive" : "active"; }

}  // namespace lg::sdp

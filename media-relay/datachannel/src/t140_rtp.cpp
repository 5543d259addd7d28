#include "t140_rtp.h"

#include <algorithm>

namespace dc {

const char kMissingTextMarker[] = "\xEF\xBF\xBD";

namespace {
constexpr size_t kRtpHeader = 12;
constexpr uint32_t kMaxTsOffset = 0x3FFF;  // RFC 2198: 14 bits

void put16(std::vector<uint8_t>& b, uint16_t v) {
  b.push_back(static_cast<uint8_t>(v >> 8));
  b.push_back(static_cast<uint8_t>(v));
}
void put32(std::vector<uint8_t>& b, uint32_t v) {
  put16(b, static_cast<uint16_t>(v >> 16));
  put16(b, static_cast<uint16_t>(v));
}
// The length of the longest prefix of s (at most max bytes) that ends on a character boundary.
size_t utf8Prefix(const std::string& s, size_t max) {
  if (s.size() <= max) return s.size();
  size_t n = max;
  while (n > 0 && (static_cast<uint8_t>(s[n]) & 0xC0) == 0x80) --n;
  return n;
}
}  // namespace

size_t utf8Chars(const std::string& s) {
  return static_cast<size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<uint8_t>(c) & 0xC0) != 0x80; }));
}

T140Packetizer::T140Packetizer(const Config& c) : cfg_(c), seq_(c.firstSeq) {
  if (cfg_.redPt < 0) cfg_.generations = 0;
}

void T140Packetizer::add(const std::string& utf8) { buffer_ += utf8; }

int64_t T140Packetizer::nextDueMs() const {
  if (idle()) return -1;
  return sentAny_ ? lastSendMs_ + cfg_.intervalMs : 0;
}

bool T140Packetizer::poll(int64_t nowMs, std::vector<uint8_t>* packet) {
  int64_t due = nextDueMs();
  if (due < 0 || nowMs < due) return false;
  if (tsBaseMs_ < 0) tsBaseMs_ = nowMs;
  uint32_t ts = cfg_.firstTs + static_cast<uint32_t>(nowMs - tsBaseMs_);
  size_t n = takeable(nowMs);
  std::string primary = buffer_.substr(0, n);
  buffer_.erase(0, n);
  bool marker = afterIdle_;
  if (marker) history_.clear();  // only empty blocks are left after an idle period
  bool red = cfg_.redPt >= 0;
  auto& p = *packet;
  p.clear();
  p.push_back(0x80);  // V=2, no padding, no extension, no CSRC
  p.push_back(static_cast<uint8_t>((marker ? 0x80 : 0) | (red ? cfg_.redPt : cfg_.t140Pt)));
  put16(p, seq_);
  put32(p, ts);
  put32(p, cfg_.ssrc);
  if (red) {
    // RFC 2198 §3: one 4-byte header per redundant block, oldest first, then the primary's 1-byte
    // header; the blocks' data in the same order. Missing generations (at the start) are empty blocks.
    size_t pad = static_cast<size_t>(cfg_.generations) - history_.size();
    for (size_t i = 0; i < pad; ++i) {
      p.push_back(static_cast<uint8_t>(0x80 | cfg_.t140Pt));
      p.insert(p.end(), {0, 0, 0});
    }
    for (const auto& h : history_) {
      uint32_t off = std::min<uint32_t>(ts - h.ts, kMaxTsOffset);
      uint32_t len = static_cast<uint32_t>(h.data.size());
      p.push_back(static_cast<uint8_t>(0x80 | cfg_.t140Pt));
      p.push_back(static_cast<uint8_t>(off >> 6));
      p.push_back(static_cast<uint8_t>((off & 0x3F) << 2 | len >> 8));
      p.push_back(static_cast<uint8_t>(len));
    }
    p.push_back(cfg_.t140Pt);
    for (const auto& h : history_) p.insert(p.end(), h.data.begin(), h.data.end());
    history_.push_back({ts, primary});
    while (history_.size() > static_cast<size_t>(cfg_.generations)) history_.pop_front();
  }
  p.insert(p.end(), primary.begin(), primary.end());
  if (!primary.empty()) redundancyLeft_ = cfg_.generations;
  else if (redundancyLeft_ > 0) --redundancyLeft_;
  ++seq_;
  lastSendMs_ = nowMs;
  sentAny_ = true;
  afterIdle_ = idle();
  ++packets_;
  chars_ += utf8Chars(primary);
  bytes_ += primary.size();
  octets_ += p.size() - kRtpHeader;
  if (cfg_.cps > 0) recent_.emplace_back(nowMs, utf8Chars(primary));
  return true;
}

size_t T140Packetizer::takeable(int64_t nowMs) {
  size_t n = utf8Prefix(buffer_, kMaxBlock);
  if (cfg_.cps <= 0) return n;
  while (!recent_.empty() && recent_.front().first <= nowMs - 10000) recent_.pop_front();
  size_t used = 0, allowed = 10 * static_cast<size_t>(cfg_.cps);
  for (const auto& r : recent_) used += r.second;
  size_t chars = used >= allowed ? 0 : allowed - used;
  // the first `chars` characters, within the n bytes
  size_t i = 0, seen = 0;
  while (i < n) {
    if ((static_cast<uint8_t>(buffer_[i]) & 0xC0) != 0x80) {
      if (seen == chars) break;
      ++seen;
    }
    ++i;
  }
  return i;
}

bool T140Depacketizer::push(const uint8_t* pkt, size_t len, std::string* text, std::string* err) {
  if (len < kRtpHeader || (pkt[0] >> 6) != 2) {
    *err = "not an RTP version 2 packet";
    return false;
  }
  size_t at = kRtpHeader + 4 * (pkt[0] & 0x0F);
  size_t end = len;
  if (pkt[0] & 0x20) {  // padding: the last byte counts it
    if (pkt[len - 1] == 0 || pkt[len - 1] > len - at) {
      *err = "bad RTP padding";
      return false;
    }
    end -= pkt[len - 1];
  }
  if (pkt[0] & 0x10) {  // header extension
    if (at + 4 > end) {
      *err = "truncated RTP header extension";
      return false;
    }
    at += 4 + 4 * (pkt[at + 2] << 8 | pkt[at + 3]);
  }
  if (at > end) {
    *err = "truncated RTP packet";
    return false;
  }
  uint8_t pt = pkt[1] & 0x7F;
  bool marker = pkt[1] & 0x80;
  uint16_t seq = static_cast<uint16_t>(pkt[2] << 8 | pkt[3]);
  uint32_t ssrc = static_cast<uint32_t>(pkt[8]) << 24 | pkt[9] << 16 | pkt[10] << 8 | pkt[11];
  std::vector<std::string> redundant;
  std::string primary;
  if (redPt_ >= 0 && pt == redPt_) {
    struct Hdr {
      uint8_t pt;
      size_t len;
    };
    std::vector<Hdr> hdrs;
    uint8_t primaryPt = 0;
    for (;;) {
      if (at >= end) {
        *err = "a RED packet without its primary block header (RFC 2198)";
        return false;
      }
      if (!(pkt[at] & 0x80)) {
        primaryPt = pkt[at] & 0x7F;
        ++at;
        break;
      }
      if (at + 4 > end) {
        *err = "a truncated RED block header";
        return false;
      }
      hdrs.push_back({static_cast<uint8_t>(pkt[at] & 0x7F), static_cast<size_t>((pkt[at + 2] & 0x03) << 8 | pkt[at + 3])});
      at += 4;
    }
    for (const auto& h : hdrs) {
      if (at + h.len > end) {
        *err = "a RED block longer than the packet";
        return false;
      }
      redundant.emplace_back(h.pt == t140Pt_ ? std::string(reinterpret_cast<const char*>(pkt + at), h.len) : "");
      at += h.len;
    }
    if (primaryPt == t140Pt_) primary.assign(reinterpret_cast<const char*>(pkt + at), end - at);
  } else if (pt == t140Pt_) {
    primary.assign(reinterpret_cast<const char*>(pkt + at), end - at);
  } else {
    *err = "payload type " + std::to_string(pt) + " is neither the negotiated t140 (" + std::to_string(t140Pt_) +
           ") nor red (" + (redPt_ >= 0 ? std::to_string(redPt_) : std::string("none")) + ")";
    return false;
  }
  if (started_ && ssrc != ssrc_) {
    started_ = false;  // a new RTP stream (RFC 3550 §8.2): its numbering starts afresh
    carry_.clear();
  }
  if (!started_) {
    started_ = true;
    ssrc_ = ssrc;
    // Without the marker bit this is not the stream's first packet: the earlier ones were lost and
    // their text is in the redundant blocks.
    if (!marker)
      for (const auto& r : redundant)
        if (!r.empty()) {
          emit(r, text);
          ++recovered_;
        }
  } else {
    int16_t gap = static_cast<int16_t>(seq - expected_);
    if (gap < 0) {
      ++stale_;  // its text was delivered already, from it or from the redundancy of a later packet
      return true;
    }
    if (gap > 0) {
      size_t g = static_cast<size_t>(gap), n = redundant.size();
      if (g > n) {
        lost_ += g - n;
        emitLoss(text);
      }
      // redundant[n - k] is the primary of packet seq - k
      for (size_t k = std::min(g, n); k >= 1; --k) {
        emit(redundant[n - k], text);
        ++recovered_;
      }
    }
  }
  ++packets_;
  emit(primary, text);
  expected_ = static_cast<uint16_t>(seq + 1);
  return true;
}

void T140Depacketizer::emit(const std::string& block, std::string* text) {
  if (block.empty()) return;
  std::string d = carry_ + block;
  carry_.clear();
  // hold back a character whose last bytes are still to come
  size_t j = d.size();
  while (j > 0 && d.size() - j < 4 && (static_cast<uint8_t>(d[j - 1]) & 0xC0) == 0x80) --j;
  if (j > 0) {
    uint8_t lead = static_cast<uint8_t>(d[j - 1]);
    size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (d.size() - (j - 1) < need) {
      carry_ = d.substr(j - 1);
      d.resize(j - 1);
    }
  }
  *text += d;
}

void T140Depacketizer::emitLoss(std::string* text) {
  carry_.clear();  // the rest of that character is gone with the lost packet
  *text += kMissingTextMarker;
}

}  // namespace dc

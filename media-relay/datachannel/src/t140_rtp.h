// Real-time text in RTP (RFC 4103): T.140 text (UTF-8) in RTP packets with the payload type
// t140/1000, carried with redundancy in RFC 2198 RED packets (red/1000) so that lost packets are
// recovered from the ones that follow. The packetiser buffers typed text and sends it on a 300 ms
// clock; each packet repeats the text of the previous `generations` packets; after the last text it
// keeps sending packets with an empty primary block until every text block went out generations + 1
// times (RFC 4103 §4, §5). The depacketiser puts the text back in order: a gap in the sequence numbers
// is filled from the redundant blocks of the packet that ends it, and what no redundancy covers is
// marked with the T.140 missing-text marker U+FFFD (RFC 4103 §5.4). No sockets here: the bridge
// (text_bridge.h) feeds and sends the packets.
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace dc {

// U+FFFD in UTF-8: T.140's marker for text that was lost (RFC 4103 §5.4, ITU-T T.140 Amd 1).
extern const char kMissingTextMarker[];

// The number of UTF-8 characters (code points) in s: bytes that are not continuation bytes.
size_t utf8Chars(const std::string& s);

class T140Packetizer {
 public:
  struct Config {
    uint8_t t140Pt = 98;
    int redPt = 100;          // -1: plain t140 packets, no redundancy
    int generations = 2;      // redundant copies per packet (RFC 4103 recommends 2); 0 with redPt -1
    int64_t intervalMs = 300; // the transmission interval (RFC 4103 §5: 300 ms)
    uint32_t ssrc = 0;
    uint16_t firstSeq = 0;
    uint32_t firstTs = 0;
    int cps = 0;              // the peer's a=fmtp cps: at most 10 * cps characters in any 10 s (RFC 4103 §6); 0 = none
  };
  // A text block may be carried as a redundant RED block, whose length field has 10 bits.
  static constexpr size_t kMaxBlock = 1023;

  explicit T140Packetizer(const Config& c);
  void add(const std::string& utf8);
  // When the next packet is due on the caller's millisecond clock, or -1 when there is nothing to send.
  int64_t nextDueMs() const;
  // The next packet if one is due at nowMs (one per call; call again while it returns true).
  bool poll(int64_t nowMs, std::vector<uint8_t>* packet);

  uint64_t packets() const { return packets_; }
  uint64_t chars() const { return chars_; }
  uint64_t bytes() const { return bytes_; }
  uint64_t octets() const { return octets_; }  // RTP payload octets sent (RTCP SR)
  uint32_t ssrc() const { return cfg_.ssrc; }
  // The RTP timestamp of the instant nowMs (RTCP SR), on the packets' timeline.
  uint32_t rtpTsAt(int64_t nowMs) const {
    return cfg_.firstTs + static_cast<uint32_t>(tsBaseMs_ < 0 ? 0 : nowMs - tsBaseMs_);
  }
  bool idle() const { return buffer_.empty() && redundancyLeft_ == 0; }

 private:
  struct Block {
    uint32_t ts;
    std::string data;
  };
  Config cfg_;
  size_t takeable(int64_t nowMs);  // bytes of buffer_ the next primary may take (block size, cps)
  std::string buffer_;          // typed, not sent yet
  std::deque<std::pair<int64_t, size_t>> recent_;  // (ms, characters) of the packets of the last 10 s
  std::deque<Block> history_;   // the primary blocks of the last `generations` packets, oldest first
  int redundancyLeft_ = 0;      // packets still owed so that the last text is sent generations + 1 times
  bool sentAny_ = false;
  bool afterIdle_ = true;       // the next packet opens a talk spurt: RTP marker bit (RFC 4103 §3)
  int64_t lastSendMs_ = 0;
  int64_t tsBaseMs_ = -1;       // the caller's clock at the first packet
  uint16_t seq_;
  uint64_t packets_ = 0, chars_ = 0, bytes_ = 0, octets_ = 0;
};

class T140Depacketizer {
 public:
  // Payload types accepted: t140 (plain) and red (RFC 2198 with t140 blocks); redPt -1 = none.
  T140Depacketizer(uint8_t t140Pt, int redPt) : t140Pt_(t140Pt), redPt_(redPt) {}
  // One RTP packet in; the text it adds, in order, appended to *text (lost text as U+FFFD). False with
  // *err when it is not an RTP packet of these payload types (nothing is appended then).
  bool push(const uint8_t* pkt, size_t len, std::string* text, std::string* err);

  uint64_t packets() const { return packets_; }
  uint64_t recovered() const { return recovered_; }  // lost packets whose text came from redundancy
  uint64_t lost() const { return lost_; }            // lost packets no redundancy covered
  uint64_t stale() const { return stale_; }          // duplicates and packets older than the text delivered

 private:
  void emit(const std::string& block, std::string* text);
  void emitLoss(std::string* text);
  uint8_t t140Pt_;
  int redPt_;
  bool started_ = false;
  uint32_t ssrc_ = 0;
  uint16_t expected_ = 0;
  std::string carry_;  // the start of a UTF-8 character whose rest is in the next block
  uint64_t packets_ = 0, recovered_ = 0, lost_ = 0, stale_ = 0;
};

}  // namespace dc

// RFC 6455 framing for a WebSocket *client*: handshake keys, masked frame encoding, and an
// incremental decoder (+ message assembly for fragmented messages). No I/O here.
#pragma once
#include <cstdint>
#include <string>

namespace lg::ws {

enum Opcode : uint8_t { kCont = 0x0, kText = 0x1, kBinary = 0x2, kClose = 0x8, kPing = 0x9, kPong = 0xA };

std::string base64(const uint8_t* data, size_t len);
std::string randomKey();                             // Sec-WebSocket-Key: 16 random bytes, base64
std::string acceptKey(const std::string& key);       // base64(SHA-1(key + RFC 6455 GUID))

// One frame. mask == nullptr: unmasked (what a server sends; used by tests); else the 4-byte key.
std::string encodeFrame(uint8_t opcode, const std::string& payload, bool fin, const uint8_t* mask);
// Masked frame with a fresh random key (RFC 6455 §5.3: every client frame is masked).
std::string encodeClientFrame(uint8_t opcode, const std::string& payload, bool fin = true);

struct Frame {
  bool fin = true;
  uint8_t opcode = 0;
  bool masked = false;
  std::string payload;  // unmasked
};

// Feed bytes as they arrive; next() pops one complete frame at a time.
class Decoder {
 public:
  enum class Result { NeedMore, Frame, Error };
  explicit Decoder(uint64_t maxPayload = 16u << 20) : max_(maxPayload) {}
  void feed(const char* data, size_t len) { buf_.append(data, len); }
  Result next(Frame& out, std::string* err);
  size_t buffered() const { return buf_.size() - pos_; }

 private:
  std::string buf_;
  size_t pos_ = 0;
  uint64_t max_;
};

// Joins a data message's fragments (first frame text/binary with FIN=0, then continuation frames);
// control frames may arrive between fragments and are returned on their own.
class Assembler {
 public:
  enum class Result { Partial, Message, Control, Error };
  Result add(Frame&& f, uint8_t& opcode, std::string& data, std::string* err);

 private:
  bool inMessage_ = false;
  uint8_t opcode_ = 0;
  std::string data_;
};

}  // namespace lg::ws

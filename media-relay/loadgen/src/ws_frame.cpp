#include "ws_frame.h"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

namespace lg::ws {

std::string base64(const uint8_t* data, size_t len) {
  std::string out(4 * ((len + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(&out[0]), data, static_cast<int>(len));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::string randomKey() {
  uint8_t nonce[16];
  RAND_bytes(nonce, sizeof nonce);
  return base64(nonce, sizeof nonce);
}

std::string acceptKey(const std::string& key) {
  static const char kGuid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
  std::string s = key + kGuid;
  uint8_t digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(s.data()), s.size(), digest);
  return base64(digest, sizeof digest);
}

std::string encodeFrame(uint8_t opcode, const std::string& payload, bool fin, const uint8_t* mask) {
  std::string f;
  f.reserve(payload.size() + 14);
  f.push_back(static_cast<char>((fin ? 0x80 : 0) | (opcode & 0x0F)));
  uint8_t maskBit = mask ? 0x80 : 0;
  uint64_t n = payload.size();
  if (n < 126) {
    f.push_back(static_cast<char>(maskBit | n));
  } else if (n <= 0xFFFF) {
    f.push_back(static_cast<char>(maskBit | 126));
    f.push_back(static_cast<char>(n >> 8));
    f.push_back(static_cast<char>(n));
  } else {
    f.push_back(static_cast<char>(maskBit | 127));
    for (int i = 7; i >= 0; --i) f.push_back(static_cast<char>(n >> (8 * i)));
  }
  if (!mask) return f + payload;
  f.append(reinterpret_cast<const char*>(mask), 4);
  size_t start = f.size();
  f += payload;
  for (size_t i = 0; i < payload.size(); ++i) f[start + i] = static_cast<char>(f[start + i] ^ mask[i & 3]);
  return f;
}

std::string encodeClientFrame(uint8_t opcode, const std::string& payload, bool fin) {
  uint8_t mask[4];
  RAND_bytes(mask, sizeof mask);
  return encodeFrame(opcode, payload, fin, mask);
}

Decoder::Result Decoder::next(Frame& out, std::string* err) {
  auto fail = [&](const char* why) {
    if (err) *err = why;
    return Result::Error;
  };
  const auto* p = reinterpret_cast<const uint8_t*>(buf_.data()) + pos_;
  size_t avail = buf_.size() - pos_;
  if (avail < 2) return Result::NeedMore;
  if (p[0] & 0x70) return fail("websocket frame with RSV bits set (no extension was negotiated)");
  uint8_t opcode = p[0] & 0x0F;
  bool fin = p[0] & 0x80;
  if ((opcode > 0x2 && opcode < 0x8) || opcode > 0xA) return fail("websocket frame with a reserved opcode");
  bool masked = p[1] & 0x80;
  uint64_t len = p[1] & 0x7F;
  size_t hdr = 2;
  if (len == 126) {
    if (avail < 4) return Result::NeedMore;
    len = static_cast<uint64_t>(p[2]) << 8 | p[3];
    hdr = 4;
  } else if (len == 127) {
    if (avail < 10) return Result::NeedMore;
    len = 0;
    for (int i = 0; i < 8; ++i) len = len << 8 | p[2 + i];
    hdr = 10;
    if (len >> 63) return fail("websocket frame length has its top bit set");
  }
  if (opcode >= 0x8 && (len > 125 || !fin)) return fail("websocket control frame fragmented or longer than 125 bytes");
  if (len > max_) return fail("websocket frame larger than the limit");
  size_t maskOff = hdr;
  if (masked) hdr += 4;
  if (avail < hdr + len) return Result::NeedMore;
  out.fin = fin;
  out.opcode = opcode;
  out.masked = masked;
  out.payload.assign(reinterpret_cast<const char*>(p + hdr), static_cast<size_t>(len));
  if (masked)
    for (size_t i = 0; i < out.payload.size(); ++i) out.payload[i] = static_cast<char>(out.payload[i] ^ p[maskOff + (i & 3)]);
  pos_ += hdr + static_cast<size_t>(len);
  if (pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  } else if (pos_ > 65536) {  // compact now and then instead of after every frame
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  return Result::Frame;
}

Assembler::Result Assembler::add(Frame&& f, uint8_t& opcode, std::string& data, std::string* err) {
  if (f.opcode >= 0x8) {
    opcode = f.opcode;
    data = std::move(f.payload);
    return Result::Control;
  }
  if (f.opcode == kCont) {
    if (!inMessage_) {
      if (err) *err = "websocket continuation frame without a message to continue";
      return Result::Error;
    }
    data_ += f.payload;
  } else {
    if (inMessage_) {
      if (err) *err = "websocket data frame while a fragmented message is unfinished";
      return Result::Error;
    }
    inMessage_ = true;
    opcode_ = f.opcode;
    data_ = std::move(f.payload);
  }
  if (!f.fin) return Result::Partial;
  inMessage_ = false;
  opcode = opcode_;
  data = std::move(data_);
  data_.clear();
  return Result::Message;
}

}  // namespace lg::ws

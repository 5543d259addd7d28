// libsrtp2 wrapper for one call: an outbound context (our key) and an inbound one (peer's key),
// both AES_CM_128_HMAC_SHA1_80 for SRTP and SRTCP.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace lg {

constexpr size_t kSrtpMaxTrailer = 144;  // >= SRTP_MAX_TRAILER_LEN; callers leave this much room

bool srtpGlobalInit(std::string* err);  // srtp_init() once per process
std::string srtpLibrary();  // libsrtp's version string, e.g. "libsrtp2 2.5.0"
const char* srtpCrypto();   // the crypto backend loadgen was built with: "openssl" (bundled) or "system"

class SrtpSession {
 public:
  SrtpSession() = default;
  ~SrtpSession();
  SrtpSession(const SrtpSession&) = delete;
  SrtpSession& operator=(const SrtpSession&) = delete;

  // Keys are key(16)||salt(14).
  bool init(const uint8_t localKey[30], const uint8_t remoteKey[30], std::string* err);
  bool ready() const { return tx_ && rx_; }
  // Frees both contexts (a call frees its SRTP when it ends, not at exit); ready() is false after.
  void reset();
  // In place; len is updated. buf must have kSrtpMaxTrailer spare bytes after len.
  bool protect(uint8_t* buf, int& len);
  enum class Rx { Ok, Replay, AuthFail, Other };  // replay = duplicate or too old for the window
  Rx unprotectStatus(uint8_t* buf, int& len);
  bool unprotect(uint8_t* buf, int& len) { return unprotectStatus(buf, len) == Rx::Ok; }
  bool protectRtcp(uint8_t* buf, int& len);
  bool unprotectRtcp(uint8_t* buf, int& len);

 private:
  void* tx_ = nullptr;  // srtp_t, kept opaque so callers need no libsrtp2 headers
  void* rx_ = nullptr;
};

}  // namespace lg

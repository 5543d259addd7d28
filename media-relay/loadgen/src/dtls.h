// DTLS-SRTP (RFC 5763/5764) over a socket owned by the caller; the certificate, SSL_CTX and the
// datagram plumbing are dtls_context.h's (shared with the data-channel endpoint).
#pragma once
#include <cstdint>
#include <string>

#include "dtls_context.h"

namespace lg {

// The one use_srtp profile loadgen offers and keys: libsrtp2 and rtpengine both support it, and it is
// what the A-SRTP bench assumes. DtlsContext::create("loadgen", kSrtpProfile, &err).
inline const char* const kSrtpProfile = "SRTP_AES128_CM_SHA1_80";

struct SrtpKeys {
  uint8_t local[30];   // our sending key||salt (AES-128 key 16 + salt 14)
  uint8_t remote[30];  // peer's sending key||salt
};

class DtlsSession {
 public:
  using SendFn = DtlsLink::SendFn;
  enum class State { Idle, Handshaking, Done, Failed };

  DtlsSession(const DtlsContext& ctx, bool isServer, SendFn send);

  void start();                                  // client sends ClientHello; server waits
  void onDatagram(const uint8_t* data, size_t len);
  void onTimer();                                // retransmits the flight when OpenSSL's timer expired
  State state() const { return state_; }
  bool isServer() const { return isServer_; }
  const std::string& error() const { return error_; }

  // After Done: checks the peer certificate against the SDP fingerprint and exports SRTP keys.
  bool verifyPeer(const std::string& hashName, const std::string& fingerprint);
  bool exportKeys(SrtpKeys& keys);

 private:
  void drive();
  void fail(const std::string& why);

  DtlsLink link_;
  bool isServer_;
  State state_ = State::Idle;
  std::string error_;
};

}  // namespace lg

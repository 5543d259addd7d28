// DTLS (RFC 6347, 1.2) carrying SCTP (RFC 8261) on one leg, with OpenSSL. The certificate, SSL_CTX
// and the datagram plumbing are loadgen's (media-relay/loadgen/src/dtls_context.h, one copy).
// The use_srtp extension is negotiated (some peers' DTLS fails without it) but no SRTP key is derived.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "dtls_context.h"

namespace dc {

// One per process: the self-signed EC P-256 certificate both legs present, and the SSL_CTX.
using lg::DtlsContext;

// The certificate's CN and the use_srtp profiles offered: DtlsContext::create(kDtlsCertName,
// kDtlsSrtpProfiles, &err). use_srtp (RFC 5764) is negotiated although no SRTP key is ever used here:
// some DTLS stacks treat a handshake without it as failed (aiortc); Chromium offers it on every DTLS
// transport.
inline const char* const kDtlsCertName = "datachannel";
inline const char* const kDtlsSrtpProfiles = "SRTP_AEAD_AES_128_GCM:SRTP_AES128_CM_SHA1_80";

class DtlsTransport {
 public:
  using SendFn = std::function<void(const uint8_t*, size_t)>;
  using DataFn = std::function<void(const uint8_t*, size_t)>;
  enum class State { Idle, Handshaking, Done, Failed, Closed };

  DtlsTransport(const DtlsContext& ctx, bool client, SendFn send, DataFn onData);

  void start();  // the client sends its ClientHello; the server waits for one
  void onDatagram(const uint8_t* data, size_t len);
  void onTimer();  // retransmits the flight when OpenSSL's timer expired
  bool send(const uint8_t* data, size_t len);  // one application record (an SCTP packet)
  // After Done: the peer's certificate must match the SDP fingerprint (RFC 8122).
  bool verifyPeer(const std::string& hashName, const std::string& fingerprint);
  void close();  // close_notify

  State state() const { return state_; }
  bool client() const { return client_; }
  const std::string& error() const { return error_; }

 private:
  void drive();
  void readRecords();
  void fail(const std::string& why);

  lg::DtlsLink link_;
  bool client_;
  State state_ = State::Idle;
  std::string error_;
  DataFn onData_;
};

}  // namespace dc

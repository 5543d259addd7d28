#include "dtls.h"

#include <cstring>

namespace lg {

DtlsSession::DtlsSession(const DtlsContext& ctx, bool isServer, SendFn send)
    : link_(ctx, !isServer, std::move(send)), isServer_(isServer) {}

void DtlsSession::start() {
  if (state_ != State::Idle) return;
  state_ = State::Handshaking;
  if (!isServer_) drive();
}

void DtlsSession::onDatagram(const uint8_t* data, size_t len) {
  if (state_ == State::Failed) return;
  if (state_ == State::Idle) state_ = State::Handshaking;  // server: peer's ClientHello may beat ICE
  link_.feed(data, len);
  if (state_ == State::Handshaking) {
    drive();
  } else {
    // After the handshake only alerts / retransmitted Finished arrive; let OpenSSL consume them.
    char buf[256];
    while (SSL_read(link_.ssl(), buf, sizeof buf) > 0) {
    }
    if (SSL_get_shutdown(link_.ssl()) & SSL_RECEIVED_SHUTDOWN) fail("peer sent close_notify");
    link_.discardUnread();
  }
}

void DtlsSession::onTimer() {
  if (state_ == State::Handshaking) link_.onTimer();
}

void DtlsSession::drive() {
  std::string why;
  switch (link_.handshake(&why)) {
    case DtlsLink::Step::Done: state_ = State::Done; break;
    case DtlsLink::Step::Failed: fail("handshake: " + why); break;
    case DtlsLink::Step::Pending: break;
  }
}

void DtlsSession::fail(const std::string& why) {
  state_ = State::Failed;
  error_ = why;
}

bool DtlsSession::verifyPeer(const std::string& hashName, const std::string& fingerprint) {
  if (link_.peerMatches(hashName, fingerprint)) return true;
  fail("peer certificate does not match the SDP fingerprint");
  return false;
}

bool DtlsSession::exportKeys(SrtpKeys& keys) {
  const SRTP_PROTECTION_PROFILE* p = SSL_get_selected_srtp_profile(link_.ssl());
  if (!p || p->id != SRTP_AES128_CM_SHA1_80) {
    fail("peer did not select SRTP_AES128_CM_SHA1_80");
    return false;
  }
  // RFC 5764 4.2: client key | server key | client salt | server salt.
  uint8_t km[60];
  static const char kLabel[] = "EXTRACTOR-dtls_srtp";
  if (SSL_export_keying_material(link_.ssl(), km, sizeof km, kLabel, sizeof kLabel - 1, nullptr, 0, 0) != 1) {
    fail("SSL_export_keying_material failed");
    return false;
  }
  const uint8_t* clientKey = km;
  const uint8_t* serverKey = km + 16;
  const uint8_t* clientSalt = km + 32;
  const uint8_t* serverSalt = km + 46;
  uint8_t* mine = keys.local;
  uint8_t* theirs = keys.remote;
  std::memcpy(mine, isServer_ ? serverKey : clientKey, 16);
  std::memcpy(mine + 16, isServer_ ? serverSalt : clientSalt, 14);
  std::memcpy(theirs, isServer_ ? clientKey : serverKey, 16);
  std::memcpy(theirs + 16, isServer_ ? clientSalt : serverSalt, 14);
  return true;
}

}  // namespace lg

#include "dtls.h"

namespace dc {

DtlsTransport::DtlsTransport(const DtlsContext& ctx, bool client, SendFn send, DataFn onData)
    : link_(ctx, client, std::move(send)), client_(client), onData_(std::move(onData)) {}

void DtlsTransport::start() {
  if (state_ != State::Idle) return;
  state_ = State::Handshaking;
  if (client_) drive();
}

void DtlsTransport::onDatagram(const uint8_t* data, size_t len) {
  if (state_ == State::Failed || state_ == State::Closed) return;
  if (state_ == State::Idle) state_ = State::Handshaking;  // the peer's ClientHello may come first
  link_.feed(data, len);
  if (state_ == State::Handshaking) drive();
  if (state_ == State::Done) readRecords();
  link_.discardUnread();
}

void DtlsTransport::readRecords() {
  uint8_t buf[16384];
  for (;;) {
    int n = SSL_read(link_.ssl(), buf, sizeof buf);
    if (n > 0) {
      if (onData_) onData_(buf, static_cast<size_t>(n));
      if (state_ != State::Done) return;  // the callback closed us
      continue;
    }
    int e = SSL_get_error(link_.ssl(), n);
    if (e == SSL_ERROR_ZERO_RETURN) {
      state_ = State::Closed;
      error_ = "the peer closed DTLS (close_notify)";
    } else if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
      fail("read: " + lg::opensslError());
    }
    return;
  }
}

void DtlsTransport::onTimer() {
  if (state_ == State::Handshaking) link_.onTimer();
}

bool DtlsTransport::send(const uint8_t* data, size_t len) {
  if (state_ != State::Done) return false;
  return SSL_write(link_.ssl(), data, static_cast<int>(len)) == static_cast<int>(len);
}

void DtlsTransport::drive() {
  std::string why;
  auto step = link_.handshake(&why);
  if (step == lg::DtlsLink::Step::Done) state_ = State::Done;
  else if (step == lg::DtlsLink::Step::Failed) fail("handshake: " + why);
}

void DtlsTransport::fail(const std::string& why) {
  state_ = State::Failed;
  error_ = why;
}

bool DtlsTransport::verifyPeer(const std::string& hashName, const std::string& fingerprint) {
  if (!link_.peerMatches(hashName, fingerprint)) {
    fail("the peer's certificate does not match its SDP fingerprint");
    return false;
  }
  return true;
}

void DtlsTransport::close() {
  if (state_ == State::Done) SSL_shutdown(link_.ssl());
  state_ = State::Closed;
}

}  // namespace dc

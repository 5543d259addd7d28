// One leg of the endpoint: a UDP socket with ICE-lite, DTLS and an SCTP association on it
// (the browser leg toward the WebRTC peer, the IMS leg toward the IMS UE's data-channel media).
// Datagrams are told apart by their first byte (RFC 7983): 0-3 STUN, 20-63 DTLS.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dtls.h"
#include "event_loop.h"
#include "ice_lite.h"
#include "sctp_assoc.h"
#include "sdp.h"

namespace dc {

class Leg : public lg::EventLoop::Handler {
 public:
  struct Events {
    std::function<void()> up;  // SCTP association established
    std::function<void(uint16_t sid, uint32_t ppid, std::string msg)> message;
    std::function<void(uint16_t sid)> streamReset;
    std::function<void(const std::string& why)> failed;
  };

  Leg(const char* name, lg::EventLoop& loop, const DtlsContext& dtls, Events ev);
  ~Leg() override;
  // Binds a UDP socket on addr within [portMin, portMax]; false with *err when none is free.
  bool bind(const std::string& addr, int portMin, int portMax, std::string* err);
  // The peer's data-channel section: its ICE credentials (if any), fingerprint, address, SCTP port;
  // dtlsClient = our DTLS role. Datagrams that arrived before this are replayed now.
  void configure(const AppMedia& remote, bool dtlsClient);

  void onReadable() override;
  void onTick();  // DTLS retransmission timer and a late DTLS client start
  bool send(uint16_t sid, uint32_t ppid, const std::string& msg, bool ordered, const ChannelParams& p, std::string* err);
  void resetStream(uint16_t sid);

  int port() const { return port_; }
  const std::string& addr() const { return addr_; }
  const IceLite& ice() const { return ice_; }
  bool up() const { return sctp_ && sctp_->isUp(); }
  std::string state() const;  // "new", "ice", "dtls", "sctp", "up", "failed: ..."
  const Addr& peer() const { return peer_; }
  int64_t lastRxNs() const { return lastRxNs_; }  // when the datagram being handled was received

 private:
  void onDatagram(const uint8_t* d, size_t len, const Addr& from);
  void sendTo(const uint8_t* d, size_t len);
  void maybeStartDtls();
  void onDtlsData(const uint8_t* d, size_t len);
  void fail(const std::string& why);

  const char* name_;
  lg::EventLoop& loop_;
  const DtlsContext& dtlsCtx_;
  Events ev_;
  int fd_ = -1;
  std::string addr_;
  int port_ = 0;
  IceLite ice_;
  bool configured_ = false;
  bool remoteIce_ = false;
  AppMedia remote_;
  Addr peer_;
  bool nominated_ = false;
  std::unique_ptr<DtlsTransport> dtls_;
  std::unique_ptr<SctpAssoc> sctp_;
  std::vector<std::pair<Addr, std::vector<uint8_t>>> early_;  // DTLS before configure()
  std::string failure_;
  int64_t lastRxNs_ = 0;
};

}  // namespace dc

// One SCTP association over DTLS (RFC 8261) with usrsctp, the SCTP stack of Chromium, Firefox and
// Janus: an AF_CONN socket whose packets go out through a callback (to DTLS) and come in through
// usrsctp_conninput. usrsctp runs without threads of its own (usrsctp_init_nothreads): the endpoint's
// one loop feeds it packets and calls SctpAssoc::tick for its timers, so every callback runs on that
// loop. Both ends connect (RFC 8831 §6.1: simultaneous open is fine, browsers do so).
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include <usrsctp.h>

#include "dcep.h"

namespace dc {

class SctpAssoc {
 public:
  struct Callbacks {
    std::function<void(const uint8_t*, size_t)> output;                    // an SCTP packet for DTLS
    std::function<void()> up;                                              // association established
    std::function<void(uint16_t sid, uint32_t ppid, std::string msg)> message;  // one whole message
    std::function<void(uint16_t sid)> streamReset;                         // the peer closed stream sid
    std::function<void(const std::string& why)> down;                      // association lost
  };

  // Once per process, before any association.
  static void globalInit();
  static void tick(uint32_t elapsedMs);  // usrsctp's timers

  SctpAssoc(uint16_t localPort, uint16_t remotePort, size_t maxMessageSize, Callbacks cb);
  ~SctpAssoc();
  SctpAssoc(const SctpAssoc&) = delete;
  SctpAssoc& operator=(const SctpAssoc&) = delete;

  bool start(std::string* err);                  // socket, options, bind, connect
  void input(const uint8_t* data, size_t len);   // an SCTP packet DTLS decrypted
  // One message on stream sid; partial reliability per params (RFC 8831 §6.6, RFC 3758).
  bool send(uint16_t sid, uint32_t ppid, const std::string& msg, bool ordered, const ChannelParams& params,
            std::string* err);
  void resetStream(uint16_t sid);  // close our outgoing stream sid (RFC 8831 §6.7)
  bool isUp() const { return up_; }
  size_t remoteMaxMessageSize() const { return maxMessageSize_; }

 private:
  static int onOutput(void* addr, void* buf, size_t len, uint8_t tos, uint8_t setDf);
  static int onReceive(struct socket* sock, union sctp_sockstore addr, void* data, size_t len,
                       struct sctp_rcvinfo info, int flags, void* ulp);
  void onNotification(const uint8_t* data, size_t len);

  struct socket* sock_ = nullptr;
  uint16_t localPort_, remotePort_;
  size_t maxMessageSize_;
  Callbacks cb_;
  bool up_ = false;
  std::string partial_;  // a message that arrived in pieces (no MSG_EOR yet)
};

}  // namespace dc

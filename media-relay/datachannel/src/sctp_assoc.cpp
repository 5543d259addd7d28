#include "sctp_assoc.h"

#include <arpa/inet.h>
#include <usrsctp.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "channel_map.h"

namespace dc {

void SctpAssoc::globalInit() {
  static bool done = false;
  if (done) return;
  done = true;
  usrsctp_init_nothreads(0, &SctpAssoc::onOutput, nullptr);
  usrsctp_sysctl_set_sctp_ecn_enable(0);
  usrsctp_sysctl_set_sctp_pr_enable(1);            // RFC 3758 partial reliability
  usrsctp_sysctl_set_sctp_reconfig_enable(1);      // RFC 6525 stream reset
  usrsctp_sysctl_set_sctp_nrsack_enable(0);
  usrsctp_sysctl_set_sctp_asconf_enable(0);
  usrsctp_sysctl_set_sctp_auth_enable(0);
  usrsctp_sysctl_set_sctp_blackhole(2);
  usrsctp_sysctl_set_sctp_delayed_sack_time_default(20);
}

void SctpAssoc::tick(uint32_t elapsedMs) { usrsctp_handle_timers(elapsedMs); }

SctpAssoc::SctpAssoc(uint16_t localPort, uint16_t remotePort, size_t maxMessageSize, Callbacks cb)
    : localPort_(localPort), remotePort_(remotePort), maxMessageSize_(maxMessageSize), cb_(std::move(cb)) {
  usrsctp_register_address(this);
}

SctpAssoc::~SctpAssoc() {
  if (sock_) {
    usrsctp_set_ulpinfo(sock_, nullptr);
    usrsctp_close(sock_);  // SO_LINGER 0: an ABORT goes out now, through onOutput, while we still exist
  }
  usrsctp_deregister_address(this);
}

int SctpAssoc::onOutput(void* addr, void* buf, size_t len, uint8_t, uint8_t) {
  auto* self = static_cast<SctpAssoc*>(addr);
  if (self && self->cb_.output) self->cb_.output(static_cast<const uint8_t*>(buf), len);
  return 0;
}

bool SctpAssoc::start(std::string* err) {
  auto bad = [&](const char* what) {
    if (err) *err = std::string("usrsctp: ") + what + ": " + std::strerror(errno);
    return false;
  };
  sock_ = usrsctp_socket(AF_CONN, SOCK_STREAM, IPPROTO_SCTP, &SctpAssoc::onReceive, nullptr, 0, this);
  if (!sock_) return bad("socket");
  if (usrsctp_set_non_blocking(sock_, 1) < 0) return bad("non-blocking");
  struct linger lo{1, 0};
  if (usrsctp_setsockopt(sock_, SOL_SOCKET, SO_LINGER, &lo, sizeof lo) < 0) return bad("SO_LINGER");
  struct sctp_assoc_value av{};
  av.assoc_id = SCTP_ALL_ASSOC;
  av.assoc_value = SCTP_ENABLE_RESET_STREAM_REQ | SCTP_ENABLE_CHANGE_ASSOC_REQ;
  if (usrsctp_setsockopt(sock_, IPPROTO_SCTP, SCTP_ENABLE_STREAM_RESET, &av, sizeof av) < 0) return bad("SCTP_ENABLE_STREAM_RESET");
  int on = 1;
  if (usrsctp_setsockopt(sock_, IPPROTO_SCTP, SCTP_RECVRCVINFO, &on, sizeof on) < 0) return bad("SCTP_RECVRCVINFO");
  if (usrsctp_setsockopt(sock_, IPPROTO_SCTP, SCTP_NODELAY, &on, sizeof on) < 0) return bad("SCTP_NODELAY");
  // messages up to the peer's a=max-message-size arrive whole; bigger ones are refused by the sender
  uint32_t pdp = 64 * 1024;
  usrsctp_setsockopt(sock_, IPPROTO_SCTP, SCTP_PARTIAL_DELIVERY_POINT, &pdp, sizeof pdp);
  const uint16_t events[] = {SCTP_ASSOC_CHANGE, SCTP_PEER_ADDR_CHANGE, SCTP_REMOTE_ERROR, SCTP_SHUTDOWN_EVENT,
                             SCTP_ADAPTATION_INDICATION, SCTP_SEND_FAILED_EVENT, SCTP_STREAM_RESET_EVENT,
                             SCTP_STREAM_CHANGE_EVENT};
  for (uint16_t e : events) {
    struct sctp_event ev{};
    ev.se_assoc_id = SCTP_ALL_ASSOC;
    ev.se_on = 1;
    ev.se_type = e;
    if (usrsctp_setsockopt(sock_, IPPROTO_SCTP, SCTP_EVENT, &ev, sizeof ev) < 0) return bad("SCTP_EVENT");
  }
  struct sctp_initmsg im{};
  im.sinit_num_ostreams = ChannelMap::kMaxStreams;
  im.sinit_max_instreams = 65535;
  if (usrsctp_setsockopt(sock_, IPPROTO_SCTP, SCTP_INITMSG, &im, sizeof im) < 0) return bad("SCTP_INITMSG");
  struct sockaddr_conn sc{};
  sc.sconn_family = AF_CONN;
  sc.sconn_port = htons(localPort_);
  sc.sconn_addr = this;
  if (usrsctp_bind(sock_, reinterpret_cast<struct sockaddr*>(&sc), sizeof sc) < 0) return bad("bind");
  sc.sconn_port = htons(remotePort_);
  if (usrsctp_connect(sock_, reinterpret_cast<struct sockaddr*>(&sc), sizeof sc) < 0 && errno != EINPROGRESS)
    return bad("connect");
  return true;
}

void SctpAssoc::input(const uint8_t* data, size_t len) { usrsctp_conninput(this, data, len, 0); }

int SctpAssoc::onReceive(struct socket*, union sctp_sockstore, void* data, size_t len, struct sctp_rcvinfo info,
                         int flags, void* ulp) {
  auto* self = static_cast<SctpAssoc*>(ulp);
  if (!data) return 1;  // the association is gone (usrsctp says so with a NULL buffer)
  if (self) {
    if (flags & MSG_NOTIFICATION) {
      self->onNotification(static_cast<const uint8_t*>(data), len);
    } else {
      self->partial_.append(static_cast<const char*>(data), len);
      if (flags & MSG_EOR) {
        std::string msg;
        msg.swap(self->partial_);
        if (self->cb_.message) self->cb_.message(info.rcv_sid, ntohl(info.rcv_ppid), std::move(msg));
      }
    }
  }
  std::free(data);
  return 1;
}

void SctpAssoc::onNotification(const uint8_t* data, size_t len) {
  auto* n = reinterpret_cast<const union sctp_notification*>(data);
  if (len < sizeof n->sn_header) return;
  switch (n->sn_header.sn_type) {
    case SCTP_ASSOC_CHANGE:
      if (n->sn_assoc_change.sac_state == SCTP_COMM_UP || n->sn_assoc_change.sac_state == SCTP_RESTART) {
        if (!up_) {
          up_ = true;
          if (cb_.up) cb_.up();
        }
      } else if (n->sn_assoc_change.sac_state == SCTP_COMM_LOST || n->sn_assoc_change.sac_state == SCTP_SHUTDOWN_COMP ||
                 n->sn_assoc_change.sac_state == SCTP_CANT_STR_ASSOC) {
        up_ = false;
        if (cb_.down) cb_.down(n->sn_assoc_change.sac_state == SCTP_CANT_STR_ASSOC ? "could not establish the association"
                                                                                     : "the association was closed or lost");
      }
      break;
    case SCTP_SHUTDOWN_EVENT:
      up_ = false;
      if (cb_.down) cb_.down("the peer shut the association down");
      break;
    case SCTP_STREAM_RESET_EVENT: {
      const auto& e = n->sn_strreset_event;
      if (!(e.strreset_flags & SCTP_STREAM_RESET_INCOMING_SSN)) break;  // our own outgoing resets
      size_t count = (e.strreset_length - sizeof e) / sizeof(uint16_t);
      for (size_t i = 0; i < count; ++i)
        if (cb_.streamReset) cb_.streamReset(e.strreset_stream_list[i]);
      break;
    }
    default:
      break;
  }
}

bool SctpAssoc::send(uint16_t sid, uint32_t ppid, const std::string& msg, bool ordered, const ChannelParams& params,
                     std::string* err) {
  if (!up_) {
    if (err) *err = "the association is not up";
    return false;
  }
  if (maxMessageSize_ && msg.size() > maxMessageSize_) {
    if (err) *err = "message of " + std::to_string(msg.size()) + " bytes exceeds the peer's a=max-message-size " +
                    std::to_string(maxMessageSize_);
    return false;
  }
  struct sctp_sendv_spa spa{};
  spa.sendv_flags = SCTP_SEND_SNDINFO_VALID;
  spa.sendv_sndinfo.snd_sid = sid;
  spa.sendv_sndinfo.snd_ppid = htonl(ppid);
  spa.sendv_sndinfo.snd_flags = SCTP_EOR | (ordered ? 0 : SCTP_UNORDERED);
  if (params.reliability != Reliability::Reliable) {
    spa.sendv_flags |= SCTP_SEND_PRINFO_VALID;
    spa.sendv_prinfo.pr_policy = params.reliability == Reliability::Rexmit ? SCTP_PR_SCTP_RTX : SCTP_PR_SCTP_TTL;
    spa.sendv_prinfo.pr_value = params.reliabilityParam;
  }
  // RFC 8831 §6.6: an empty message is sent as one byte with the "empty" PPID
  static const char kZero = 0;
  const void* buf = msg.empty() ? static_cast<const void*>(&kZero) : msg.data();
  size_t len = msg.empty() ? 1 : msg.size();
  if (usrsctp_sendv(sock_, buf, len, nullptr, 0, &spa, sizeof spa, SCTP_SENDV_SPA, 0) < 0) {
    if (err) *err = std::string("usrsctp_sendv: ") + std::strerror(errno);
    return false;
  }
  return true;
}

void SctpAssoc::resetStream(uint16_t sid) {
  if (!sock_ || !up_) return;
  std::vector<uint8_t> buf(sizeof(struct sctp_reset_streams) + sizeof(uint16_t));
  auto* rs = reinterpret_cast<struct sctp_reset_streams*>(buf.data());
  rs->srs_assoc_id = SCTP_ALL_ASSOC;
  rs->srs_flags = SCTP_STREAM_RESET_OUTGOING;
  rs->srs_number_streams = 1;
  rs->srs_stream_list[0] = sid;
  usrsctp_setsockopt(sock_, IPPROTO_SCTP, SCTP_RESET_STREAMS, rs, static_cast<socklen_t>(buf.size()));
}

}  // namespace dc

// Real-time text interworking of one call (RFC 8865 §6 gateway): the browser's T.140 data channel
// (subprotocol "t140", negotiated by id or opened with DCEP) on the browser leg <-> RFC 4103 RTP text
// (m=text, t140/1000 with RFC 2198 redundancy, red/1000) toward the IMS side. Text from the channel is
// buffered and sent in RTP every 300 ms with two redundant generations; text from RTP is put back in
// order (lost packets recovered from the redundancy, the rest marked U+FFFD) and sent on the channel.
// The session (session.h) owns it and hands it the browser leg's messages first.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "bencode.h"
#include "event_loop.h"
#include "ice_lite.h"
#include "rtcp_report.h"
#include "t140_rtp.h"
#include "text_sdp.h"

namespace dc {

class TextBridge : public lg::EventLoop::Handler {
 public:
  struct Options {
    int channel = -1;     // the browser's negotiated T.140 stream id; -1: the first channel the
                          // browser opens with DCEP with the protocol "t140"
    int t140Pt = 98;
    int redPt = 100;      // -1: offer plain t140 only
    int generations = 2;  // redundant generations offered (RFC 4103 §4: 2)
    int cps = 30;         // our a=fmtp cps
  };
  // How the bridge reaches the browser's SCTP association (the session's browser leg).
  struct Browser {
    std::function<bool()> up;
    std::function<bool(uint16_t sid, uint32_t ppid, const std::string& msg)> send;
  };

  TextBridge(std::string callId, lg::EventLoop& loop, Browser browser);
  ~TextBridge() override;
  // Binds the RTP/RTCP port pair on addr and produces the m=text offer for the IMS side.
  bool offer(const Options& o, const std::string& addr, int portMin, int portMax, std::string* sdp, std::string* err);
  // The IMS side's answer (its first m=text section): where to send, and with or without redundancy.
  bool answer(const std::string& sdp, std::string* err);
  // A call from IMS (MT): binds the port pair on addr and answers the IMS side's offer (its first m=text):
  // its payload types, red kept when offered and o.redPt >= 0, at most o.generations; *sdp is our answer.
  bool answerOffer(const Options& o, const std::string& imsOffer, const std::string& addr, int portMin, int portMax,
                   std::string* sdp, std::string* err);
  // A message the browser leg received: true when it is the T.140 channel's (consumed here).
  bool fromBrowser(uint16_t sid, uint32_t ppid, const std::string& msg);
  // The browser closed a stream; true when it was the T.140 channel's.
  bool browserStreamReset(uint16_t sid);
  void tick(int64_t nowMs);
  void onReadable() override;
  lg::BValue stats() const;
  int port() const { return port_; }
  int generations() const { return generations_; }  // in use after the answer (0: plain t140)
  int sendT140Pt() const { return sendT140Pt_; }
  int sendRedPt() const { return sendRedPt_; }

 private:
  // The RTCP port: the peer's reports are counted and its SR time kept for our LSR/DLSR.
  struct RtcpSink : lg::EventLoop::Handler {
    int fd = -1;
    uint32_t peerIp = 0;  // only from the answered address
    uint64_t packets = 0;
    RtcpLastSr lastSr;
    void onReadable() override;
  };
  void sendRtcp(int64_t nowMs);
  bool bindPorts(const std::string& addr, int portMin, int portMax, std::string* err);
  // The peer's media (its answer or its offer) fixed: sending and receiving start. rxT140/rxRed: the payload
  // types the peer sends with (ours in an offer of ours, its own when we answered).
  bool start(const TextMedia& t, int rxT140, int rxRed, std::string* err);
  void toBrowser(const std::string& text);
  void flushToBrowser();

  std::string callId_;
  lg::EventLoop& loop_;
  Browser browser_;
  Options opts_;
  int fd_ = -1;
  RtcpSink rtcp_;
  std::string addr_;
  int port_ = 0;
  enum class State { New, Offered, Answered } state_ = State::New;
  Addr peer_;
  int generations_ = 0, sendT140Pt_ = -1, sendRedPt_ = -1;
  int channel_ = -1;             // the browser's T.140 stream, once known
  bool closed_ = false;          // the browser closed it
  std::string beforeAnswer_;     // typed before the IMS side answered
  std::string forBrowser_;       // from RTP, not yet sent on the channel (it is not open yet)
  std::unique_ptr<T140Packetizer> tx_;
  std::unique_ptr<T140Depacketizer> rx_;
  uint64_t fromBrowserMsgs_ = 0, fromBrowserChars_ = 0, toBrowserMsgs_ = 0, toBrowserChars_ = 0;
  uint64_t rtpRefused_ = 0, rtpForeign_ = 0, rtpEarly_ = 0;
  RtpReceiveStats rxStats_;   // RFC 3550 statistics of the peer's stream, for our reports
  int64_t nextRtcpMs_ = 0;
  uint64_t rtcpSent_ = 0;
  std::string lastRefusal_;
};

}  // namespace dc

// One data-channel session of the endpoint (TS 23.334 §5.20.2, the eIMS-AGW's data-channel media):
// the browser leg and the IMS leg, the channel map between them, and the relay of messages.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "bencode.h"
#include "channel_map.h"
#include "leg.h"
#include "text_bridge.h"

namespace dc {

struct MediaConfig {
  std::string browserAddr = "127.0.0.1";  // where the browser leg's socket is bound and announced
  std::string imsAddr = "127.0.0.1";      // the same for the IMS leg
  int portMin = 0, portMax = 0;             // main.cpp: LAB_DATACHANNEL_PORT_MIN/MAX or --port-min/max
  size_t maxMessageSize = 262144;         // our a=max-message-size on both legs
};

class Session {
 public:
  Session(std::string callId, lg::EventLoop& loop, const DtlsContext& dtls, const MediaConfig& cfg);
  // The browser's offer (its data-channel section) plus channels the gateway negotiates for the IMS
  // leg: binds both legs, produces the browser leg's answer and the IMS leg's offer.
  bool offer(const std::string& browserSdp, const std::vector<DcMap>& channels, std::string* browserAnswer,
             std::string* imsOffer, std::string* err);
  // A call from IMS: the IMS side's offer (its data-channel section and a=dcmap channels, kept with their
  // ids on both legs): binds both legs, produces the offer toward the browser and the answer to IMS.
  bool offerFromIms(const std::string& imsSdp, std::string* browserOffer, std::string* imsAnswer, std::string* err);
  // The answer to the endpoint's offer: the IMS side's (after offer) or the browser's (after offerFromIms);
  // the negotiated channels it did not accept are dropped.
  bool answer(const std::string& imsSdp, std::vector<uint16_t>* accepted, std::string* err);
  bool answered() const { return answered_; }
  // Real-time text for this call (text_bridge.h): the browser's T.140 channel bridged to RFC 4103 RTP
  // text; textOffer binds the RTP port on the IMS leg's address and gives the m=text offer,
  // textAnswer takes the IMS side's answer. text() is null until textOffer.
  bool textOffer(lg::EventLoop& loop, const TextBridge::Options& o, std::string* imsText, std::string* err);
  bool textAnswer(const std::string& imsSdp, std::string* err);
  // A call from IMS with text (MT, an IMS offer with m=text and no m=application): binds the browser leg and
  // offers the browser a T.140 channel (a=dcmap:<o.channel> label="t140";subprotocol="t140", RFC 8865) in
  // *browserOffer, and answers the IMS side's m=text in *imsAnswer; the browser's answer goes to answer().
  // After offerFromIms (an IMS offer with both m=application and m=text, not yet answered): the T.140 channel
  // joins the IMS side's channels in the one data-channel section toward the browser (*browserOffer again,
  // whole); its id must not be one of them.
  bool textOfferFromIms(lg::EventLoop& loop, const TextBridge::Options& o, const std::string& imsSdp,
                        std::string* browserOffer, std::string* imsAnswer, std::string* err);
  const TextBridge* text() const { return text_.get(); }
  void tick();
  lg::BValue stats() const;
  const std::string& callId() const { return callId_; }

 private:
  struct Pending {
    uint16_t sid;
    uint32_t ppid;
    std::string msg;
    int64_t rxNs;
  };
  struct Direction {
    uint64_t messages = 0, bytes = 0, dropped = 0;
    std::vector<uint32_t> relayUs;  // the endpoint's own time per message: datagram in -> SCTP send
  };

  void onMessage(Side from, uint16_t sid, uint32_t ppid, std::string msg);
  void handle(Side from, uint16_t sid, uint32_t ppid, const std::string& msg, int64_t rxNs);
  void onUp(Side s);
  void onStreamReset(Side from, uint16_t sid);
  void sendDcep(Side s, uint16_t sid, const std::vector<uint8_t>& m);

  std::string callId_;
  MediaConfig cfg_;
  const DtlsContext& dtls_;
  std::unique_ptr<Leg> legs_[2];
  ChannelMap map_;
  std::vector<DcMap> offered_;
  bool answered_ = false;
  bool imsOffered_ = false;  // offerFromIms made browserOffer_, the section toward the browser
  LocalMedia browserOffer_;
  Side answering_ = kIms;  // the leg whose peer answers the endpoint's offer
  std::deque<Pending> pending_[2];  // received on a leg while the other one is not up yet
  size_t pendingBytes_ = 0;
  Direction dir_[2];                // indexed by the side a message came from
  std::unique_ptr<TextBridge> text_;  // after legs_: it goes first, it uses the browser leg
};

}  // namespace dc

#include "ng_signaling.h"

#include "sdp.h"

namespace lg {

NgSignaling::NgSignaling(SignalingHost& host, NgClient& ng, const Config& cfg, std::mt19937_64& rng,
                         const CallResult& call)
    : host_(host), ng_(ng), cfg_(cfg), rng_(rng), callId_(call.callId),
      fromTag_("lgb" + std::to_string(call.index)), toTag_("lgf" + std::to_string(call.index)) {}

// docs/architecture.md "rtpengine flags": offer from the browser (MO) -> IMS SDP.
BValue NgSignaling::offerCommand(const Config& cfg, const std::string& callId, const std::string& fromTag,
                                 const std::string& sdp) {
  BValue cmd = BValue::makeDict();
  cmd["command"] = "offer";
  cmd["call-id"] = callId;
  cmd["from-tag"] = fromTag;
  cmd["sdp"] = sdp;
  cmd["transport-protocol"] = "RTP/AVP";
  cmd["ICE"] = "remove";
  cmd["rtcp-mux"] = BValue::makeList({"demux"});
  cmd["flags"] = BValue::makeList({"trust-address", "strip-extmap"});
  cmd["replace"] = BValue::makeList({"origin", "session-connection"});
  if (cfg.transcode) {
    // As the gateway's CodecPolicy.moForced (docs/media.md): IMS is offered only the forced codec, the
    // browser keeps Opus and rtpengine transcodes between them.
    const ImsCodec& c = cfg.imsCodec;
    BValue codec = BValue::makeDict();
    codec["strip"] = BValue::makeList({c.name});
    codec["mask"] = BValue::makeList({"all"});
    codec["transcode"] = BValue::makeList({c.transcodeSpec});
    cmd["codec"] = codec;
  }
  return cmd;
}

// docs/architecture.md "rtpengine flags": answer from IMS (MO) -> browser SDP.
BValue NgSignaling::answerCommand(const Config& cfg, const std::string& callId, const std::string& fromTag,
                                  const std::string& toTag, const std::string& sdp) {
  BValue cmd = BValue::makeDict();
  cmd["command"] = "answer";
  cmd["call-id"] = callId;
  cmd["from-tag"] = fromTag;
  cmd["to-tag"] = toTag;
  cmd["sdp"] = sdp;
  if (cfg.plainRtp) {  // A-RTP: the browser leg stays RTP/AVP (no ICE, no DTLS)
    cmd["transport-protocol"] = "RTP/AVP";
    cmd["ICE"] = "remove";
  } else {
    cmd["transport-protocol"] = "UDP/TLS/RTP/SAVPF";
    cmd["ICE"] = "force";
    cmd["rtcp-mux"] = BValue::makeList({"offer", "require"});
    cmd["DTLS"] = "active";
  }
  return cmd;
}

BValue NgSignaling::deleteCommand(const std::string& callId, const std::string& fromTag) {
  BValue cmd = BValue::makeDict();
  cmd["command"] = "delete";
  cmd["call-id"] = callId;
  cmd["from-tag"] = fromTag;
  cmd["delete-delay"] = 0;  // otherwise rtpengine keeps the call listed for 30 s
  return cmd;
}

void NgSignaling::start(const std::string& offer, int64_t now) {
  tStart_ = now;
  state_ = State::Offer;  // even if the reply is lost rtpengine may have created the call
  ng_.send(offerCommand(cfg_, callId_, fromTag_, offer),
           [this](bool ok, const BValue& r, const std::string& e) { onOfferReply(ok, r, e); });
}

void NgSignaling::onOfferReply(bool ok, const BValue& reply, const std::string& err) {
  if (state_ != State::Offer || host_.stage() != CallStage::Signaling) return;
  tOfferReply_ = nowNs();
  if (!ok) return host_.fail("ng-offer", err);
  std::string imsSdp = reply.str("sdp");
  host_.dumpSdp("rtpengine-offer-reply.sdp", imsSdp);
  sdp::Remote ims;
  std::string perr;
  if (!sdp::parseRemote(imsSdp, ims, &perr)) return host_.fail("ng-offer", "IMS SDP: " + perr);
  CallResult& res = host_.res();
  res.imsPort = ims.port;
  res.imsSdpCodec = ims.firstCodec;
  sdp::FarCodec farCodec;
  if (cfg_.transcode) {
    // The far end answers with the codec rtpengine offered (its payload type: AMR-WB's is dynamic).
    const ImsCodec& c = cfg_.imsCodec;
    if (ims.firstCodec.compare(0, c.rtpmap.size(), c.rtpmap) != 0)
      return host_.fail("ng-offer", "rtpengine offered IMS '" + ims.firstCodec + "', not " + c.rtpmap +
                                        " (cannot transcode to it? docs/media.md)");
    farCodec = {ims.firstPt, ims.firstCodec, c.fmtp};
  }

  bool external = cfg_.far == FarMode::External;
  std::string answer = sdp::buildFarAnswer(external ? cfg_.farHost : cfg_.localIp,
                                           external ? cfg_.farPort : host_.farPort(), rng_() >> 2, farCodec);
  host_.dumpSdp("far-answer.sdp", answer);
  state_ = State::Answer;
  tAnswerSent_ = nowNs();
  ng_.send(answerCommand(cfg_, callId_, fromTag_, toTag_, answer),
           [this](bool ok2, const BValue& r, const std::string& e) { onAnswerReply(ok2, r, e); });
}

void NgSignaling::onAnswerReply(bool ok, const BValue& reply, const std::string& err) {
  if (state_ != State::Answer || host_.stage() != CallStage::Signaling) return;
  int64_t now = nowNs();
  tAnswerReply_ = now;
  if (!ok) return host_.fail("ng-answer", err);
  std::string browserSdp = reply.str("sdp");
  host_.dumpSdp("rtpengine-answer-reply.sdp", browserSdp);
  host_.onRemoteSdp(browserSdp, now);
}

void NgSignaling::end(int64_t) {
  state_ = State::Ending;
  ng_.send(deleteCommand(callId_, fromTag_), [this](bool ok, const BValue&, const std::string&) {
    host_.res().deleted = ok;
    host_.finish();
  });
}

void NgSignaling::report(CallResult& r) const {
  r.ngOfferMs = msBetween(tStart_, tOfferReply_);
  r.ngAnswerMs = msBetween(tAnswerSent_, tAnswerReply_);
}

}  // namespace lg

// What a call's two legs carry, beyond the traffic profile's rate and size: the browser leg's transport
// (DTLS-SRTP like Chromium, or plain RTP/AVP for A-RTP) and, when rtpengine must transcode, the codec
// the IMS leg is forced to (docs/loadgen.md "Media modes"; the gateway's CodecPolicy does the same).
#pragma once
#include <string>

namespace lg {

struct ImsCodec {
  std::string name;            // wire name in SDP a=rtpmap and in `--ims-codec` (PCMA, AMR-WB)
  int pt = 0;                  // payload type the far end answers with
  std::string rtpmap;          // "PCMA/8000"
  std::string fmtp;            // "" or the a=fmtp parameters
  std::string transcodeSpec;   // rtpengine ng `codec.transcode` entry (full spec: see docs/media.md)
  int clockRate = 0;
};

// The codecs loadgen can ask rtpengine 10.5 to transcode Opus to. False for any other name.
bool findImsCodec(const std::string& name, ImsCodec& out);
std::string imsCodecNames();  // "PCMA, AMR-WB" for error messages

// profiles.json `ims_codec` ("AMR-WB/16000 or PCMA/8000") -> the first of its codecs loadgen knows,
// in the order listed here: PCMA first (needs nothing beyond stock libavcodec). "" when none.
std::string defaultImsCodec(const std::string& profileImsCodec);

}  // namespace lg

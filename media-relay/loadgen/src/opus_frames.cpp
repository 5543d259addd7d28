#include "opus_frames.h"

#include <opus/opus.h>

#include <cmath>

namespace lg {

bool OpusFrames::encode(int pps, int frameBytes, double seconds, std::string* err) {
  constexpr int kRate = 48000;
  if (pps <= 0 || kRate % pps != 0) {
    if (err) *err = "opus: pps " + std::to_string(pps) + " is not a whole number of samples per frame";
    return false;
  }
  const int frameSamples = kRate / pps;  // 960 at 50 pps = 20 ms; opus accepts 2.5..60 ms frames
  int e = OPUS_OK;
  OpusEncoder* enc = opus_encoder_create(kRate, 1, OPUS_APPLICATION_VOIP, &e);
  if (e != OPUS_OK || !enc) {
    if (err) *err = std::string("opus_encoder_create: ") + opus_strerror(e);
    return false;
  }
  // CBR at the profile's size: 120 B x 50 pps = 48 kbit/s, the payload the other audio profiles send.
  opus_encoder_ctl(enc, OPUS_SET_BITRATE(frameBytes * 8 * pps));
  opus_encoder_ctl(enc, OPUS_SET_VBR(0));
  opus_encoder_ctl(enc, OPUS_SET_COMPLEXITY(5));
  const int nFrames = static_cast<int>(seconds * pps);
  std::vector<opus_int16> pcm(static_cast<size_t>(frameSamples));
  std::vector<uint8_t> out(1500);
  double phase = 0;
  frames_.clear();
  for (int f = 0; f < nFrames; ++f) {
    for (int s = 0; s < frameSamples; ++s) {
      double t = (static_cast<double>(f) * frameSamples + s) / kRate;
      double freq = 300 + 900 * (0.5 + 0.5 * std::sin(2 * M_PI * 0.5 * t));   // 300..1200 Hz sweep
      double env = 0.2 + 0.8 * std::fabs(std::sin(2 * M_PI * 2 * t));          // ~4 "syllables"/s
      phase += 2 * M_PI * freq / kRate;
      pcm[static_cast<size_t>(s)] = static_cast<opus_int16>(8000 * env * std::sin(phase));
    }
    opus_int32 n = opus_encode(enc, pcm.data(), frameSamples, out.data(), static_cast<opus_int32>(out.size()));
    if (n < 0) {
      if (err) *err = std::string("opus_encode: ") + opus_strerror(n);
      opus_encoder_destroy(enc);
      return false;
    }
    frames_.emplace_back(out.begin(), out.begin() + n);
  }
  opus_encoder_destroy(enc);
  if (frames_.empty() && err) *err = "opus: no frames encoded";
  return !frames_.empty();
}

}  // namespace lg

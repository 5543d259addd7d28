// Real Opus frames for the transcoding profile: rtpengine decodes what the browser leg sends, so the
// payload must be a valid Opus stream (the other profiles send filler bytes, which rtpengine forwards
// blind). A test signal is encoded once at start-up with libopus and the frames are looped.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace lg {

class OpusFrames {
 public:
  // Encodes `seconds` of a 48 kHz mono test signal (a tone sweep with a syllable-like envelope) in
  // frames of 48000/pps samples, constant bit rate so every frame has `frameBytes` bytes.
  bool encode(int pps, int frameBytes, double seconds, std::string* err);
  size_t count() const { return frames_.size(); }
  const std::vector<uint8_t>& frame(uint64_t i) const { return frames_[i % frames_.size()]; }

 private:
  std::vector<std::vector<uint8_t>> frames_;
};

}  // namespace lg

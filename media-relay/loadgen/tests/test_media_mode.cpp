// Transcoding mode: the IMS codec table and the Opus frames loadgen sends (they must decode).
#include <gtest/gtest.h>
#include <opus/opus.h>

#include "media_mode.h"
#include "opus_frames.h"

using namespace lg;

TEST(ImsCodec, KnownCodecsAndProfileDefault) {
  ImsCodec c;
  ASSERT_TRUE(findImsCodec("PCMA", c));
  EXPECT_EQ(c.pt, 8);
  EXPECT_EQ(c.transcodeSpec, "PCMA/8000/1/64000");  // full spec, as the gateway sends (docs/media.md)
  ASSERT_TRUE(findImsCodec("AMR-WB", c));
  EXPECT_EQ(c.clockRate, 16000);
  EXPECT_FALSE(findImsCodec("G729", c));
  EXPECT_EQ(defaultImsCodec("AMR-WB/16000 or PCMA/8000"), "PCMA");
  EXPECT_EQ(defaultImsCodec("AMR-WB/16000"), "AMR-WB");
  EXPECT_EQ(defaultImsCodec(""), "");
}

TEST(OpusFrames, ConstantSizeFramesThatDecodeToTheSignal) {
  OpusFrames f;
  std::string err;
  ASSERT_TRUE(f.encode(50, 120, 1.0, &err)) << err;
  ASSERT_EQ(f.count(), 50u);
  int e = 0;
  OpusDecoder* dec = opus_decoder_create(48000, 1, &e);
  ASSERT_EQ(e, OPUS_OK);
  std::vector<opus_int16> pcm(960);
  double energy = 0;
  for (size_t i = 0; i < f.count(); ++i) {
    EXPECT_EQ(f.frame(i).size(), 120u);  // CBR at 48 kbit/s, the size of the other audio profiles
    int n = opus_decode(dec, f.frame(i).data(), static_cast<opus_int32>(f.frame(i).size()), pcm.data(), 960, 0);
    ASSERT_EQ(n, 960);
    for (auto s : pcm) energy += double(s) * s;
  }
  opus_decoder_destroy(dec);
  EXPECT_GT(energy / (50 * 960), 1e5);  // a tone, not silence (RMS > ~300)
  EXPECT_EQ(&f.frame(50), &f.frame(0));  // looped
}

TEST(OpusFrames, RefusesFrameSizesOpusCannotTake) {
  OpusFrames f;
  std::string err;
  EXPECT_FALSE(f.encode(7, 120, 1.0, &err));  // 48000/7 is not whole
  EXPECT_FALSE(err.empty());
}

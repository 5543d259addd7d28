// AudioWorklet side of audio-probe.js: skips `skipFrames`, then keeps `frames` samples of the first
// input channel (silence while the input has no channel) and posts them once, then stops.
class RecorderProcessor extends AudioWorkletProcessor {
  constructor(options) {
    super();
    const { frames, skipFrames } = options.processorOptions;
    this.skip = skipFrames;
    this.buf = new Float32Array(frames);
    this.filled = 0;
  }

  process(inputs) {
    const ch = inputs[0]?.[0];
    const n = ch?.length ?? 128;   // a render quantum is 128 frames
    if (this.skip > 0) {
      this.skip -= n;
      return true;
    }
    const take = Math.min(n, this.buf.length - this.filled);
    if (ch) this.buf.set(ch.subarray(0, take), this.filled);
    this.filled += take;
    if (this.filled < this.buf.length) return true;
    this.port.postMessage(this.buf, [this.buf.buffer]);
    return false;
  }
}

registerProcessor('audio-probe-recorder', RecorderProcessor);

// Records what a call's remote audio track delivers (the audio-quality check, docs/media.md):
// WebAudio + an AudioWorklet keep `durationMs` of PCM after `skipMs`. Used by automation
// (harness/runner/browser.mjs) through window.labClient.remoteStream(); the UI does not load it.
const recordings = new Map();   // callId -> Promise<{sampleRate, samples: number[]}>
const STREAM_WAIT_MS = 3000;    // the remote track appears once the answer SDP is applied

// Starts recording call `callId` in the background; audioRecording() returns the result.
export function startRecording(callId, { skipMs = 1000, durationMs = 2000 } = {}) {
  const p = record(callId, skipMs, durationMs);
  p.catch(() => {});
  recordings.set(callId, p);
}

export async function audioRecording(callId) {
  const p = recordings.get(callId);
  if (!p) throw new Error(`no audio recording was started for call ${callId}`);
  return p;
}

async function record(callId, skipMs, durationMs) {
  const stream = await remoteStream(callId);
  const ctx = new AudioContext();
  // Chrome feeds a remote WebRTC track into WebAudio only while a media element plays it.
  const sink = new Audio();
  sink.muted = true;
  sink.srcObject = stream;
  sink.play().catch(() => {});   // not awaited: resolves only once playback has started
  try {
    await ctx.audioWorklet.addModule(new URL('./audio-probe-worklet.js', import.meta.url));
    await ctx.resume();
    const frames = Math.round((ctx.sampleRate * durationMs) / 1000);
    const node = new AudioWorkletNode(ctx, 'audio-probe-recorder', {
      numberOfInputs: 1, numberOfOutputs: 0, channelCount: 1, channelCountMode: 'explicit',
      processorOptions: { frames, skipFrames: Math.round((ctx.sampleRate * skipMs) / 1000) },
    });
    ctx.createMediaStreamSource(stream).connect(node);
    const samples = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`recording of call ${callId} did not finish in time (call ended early?)`)),
        skipMs + durationMs + 3000);
      node.port.onmessage = (e) => { clearTimeout(timer); resolve(e.data); };
    });
    return { sampleRate: ctx.sampleRate, samples: Array.from(samples) };
  } finally {
    sink.srcObject = null;
    ctx.close().catch(() => {});
  }
}

async function remoteStream(callId) {
  const t0 = Date.now();
  for (;;) {
    const s = window.labClient.remoteStream(callId);
    if (s) return s;
    if (Date.now() - t0 > STREAM_WAIT_MS) throw new Error(`call ${callId} has no remote audio track`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

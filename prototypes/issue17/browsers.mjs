// Issue #17 prototype: launch Debian's Chromium or Firefox ESR through puppeteer-core (Chromium over
// CDP, Firefox over WebDriver BiDi), system binaries only (nothing downloads a browser), fake media
// auto-granted, and no flag/pref that exposes host addresses (no --allow-loopback-in-peer-connection,
// no media.peerconnection.ice.obfuscate_host_addresses=false, no default_address_only changes).
import puppeteer from 'puppeteer-core';

export const BINARIES = { chromium: '/usr/bin/chromium', firefox: '/usr/bin/firefox-esr' };

// origin: the gateway's http:// origin on a non-loopback address. getUserMedia needs a secure context,
// and http://198.18.0.1 is not one: both browsers are told to treat that one origin as secure.
// grantMedia=false (Chromium): no --use-fake-ui-for-media-stream, so the page holds no media permission and
// Chromium hides its host addresses behind mDNS names, as Firefox always does (useOscillatorMic needs none).
export async function launch(kind, { origin, firefoxPrefs = {}, grantMedia = true } = {}) {
  const host = new URL(origin).host;
  if (kind === 'firefox') {
    return puppeteer.launch({
      browser: 'firefox', executablePath: BINARIES.firefox, headless: true, protocolTimeout: 60000,
      extraPrefsFirefox: {
        'media.navigator.streams.fake': true,            // fake mic/camera (a tone / test pattern)
        'media.navigator.permission.disabled': true,     // grant getUserMedia without a prompt
        'dom.securecontext.allowlist': host.split(':')[0], // http://198.18.0.1 counts as secure
        'media.autoplay.default': 0,                     // allow audible playback/WebAudio w/o gesture
        'media.autoplay.block-webaudio': false,
        // No sound device here (no /dev/snd, no PulseAudio): without a mock cubeb context an AudioContext
        // stays 'suspended' for ever, so WebAudio (oscillator mic, analyser) produces/reads nothing.
        'media.cubeb.force_mock_context': true,
        ...firefoxPrefs,
      },
    });
  }
  return puppeteer.launch({
    browser: 'chrome', executablePath: BINARIES.chromium, headless: true, protocolTimeout: 60000,
    args: ['--no-sandbox', ...(grantMedia ? ['--use-fake-ui-for-media-stream'] : []), '--use-fake-device-for-media-stream',
      `--unsafely-treat-insecure-origin-as-secure=${origin}`, '--autoplay-policy=no-user-gesture-required',
      '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

// Replaces getUserMedia's audio with a WebAudio oscillator (freqHz) into a MediaStreamDestination: a known
// signal that works the same in both browsers (Chromium's --use-file-for-fake-audio-capture has no Firefox twin).
export async function useOscillatorMic(page, freqHz) {
  await page.evaluateOnNewDocument((f) => {
    const real = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
    navigator.mediaDevices.getUserMedia = async (c) => {
      const wantsVideo = c && c.video;
      const ctx = new AudioContext();
      await ctx.resume();
      const osc = new OscillatorNode(ctx, { frequency: f });
      const gain = new GainNode(ctx, { gain: 0.3 });
      const dest = ctx.createMediaStreamDestination();
      osc.connect(gain).connect(dest);
      osc.start();
      window.__oscCtx = ctx;
      if (!wantsVideo) return dest.stream;
      const v = await real({ video: c.video });
      return new MediaStream([...dest.stream.getAudioTracks(), ...v.getVideoTracks()]);
    };
  }, freqHz);
}

// Peak frequency (Hz) and its level (dBFS) of a call's remote audio, via an AnalyserNode (both browsers).
export function remotePeak(page, callId, ms = 1500) {
  return page.evaluate(async (id, wait) => {
    const stream = window.labClient.remoteStream(id);
    if (!stream) return { error: 'no remote stream' };
    const ctx = new AudioContext();
    await ctx.resume();
    const an = new AnalyserNode(ctx, { fftSize: 8192 });
    ctx.createMediaStreamSource(stream).connect(an);
    // Chromium only pulls remote WebRTC audio into WebAudio when the stream also plays in an element.
    const el = new Audio(); el.srcObject = stream; el.muted = true; await el.play().catch(() => {});
    await new Promise((r) => setTimeout(r, wait));
    const bins = new Float32Array(an.frequencyBinCount);
    an.getFloatFrequencyData(bins);
    let best = 0;
    for (let i = 1; i < bins.length; i++) if (bins[i] > bins[best]) best = i;
    const out = { peakHz: Math.round(best * ctx.sampleRate / an.fftSize), peakDb: Math.round(bins[best]), ctxState: ctx.state };
    el.pause(); await ctx.close();
    return out;
  }, callId, ms);
}

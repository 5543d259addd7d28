// Real SIP phones from Debian, headless, as IMS UEs of the lab (docs/phones.md): baresip (baresip-core,
// driven over its ctrl_tcp module: netstring JSON commands and events) and linphone (linphone-cli's
// linphone-daemon, driven over its Unix socket; its events on stdout). Each phone is configured per run
// into its own folder under the log directory (nothing in $HOME), registers at the lab's P-CSCF as an
// ims-sim/users.txt subscriber, sends a 440 Hz tone (baresip's ausine; a WAV through linphone's in-call
// file player) and has no sound card (nothing plays what it receives: the wire and the browser's
// getStats show the media). Tests drive it: register, dial, answer, hang up, read its state and the SIP
// messages it sent and received (its own trace).
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ADDRESSES, LAB } from '../kit/addresses.mjs';
import { logDir, passwordOf } from '../kit/env.mjs';
import { sleep, start, stop } from '../kit/procs.mjs';

export const IMS_DOMAIN = 'ims.lab';

// The phones of the lab: which subscriber each registers as and its fixed ports (harness/addresses.env LAB_PHONE_*,
// clear of the SIPp UEs' and rtpengine's). rtpPort: its RTP (RTCP on rtpPort + 1). baresip also
// listens on sipPort + 1 (TLS), so its ctrl_tcp port is further off.
export const PHONES = Object.freeze({
  baresip: { user: 'dave', sipPort: Number(LAB.LAB_PHONE_BARESIP_SIP_PORT), ctrlPort: Number(LAB.LAB_PHONE_BARESIP_CTRL_PORT), rtpPort: Number(LAB.LAB_PHONE_BARESIP_RTP_PORT) },
  linphone: { user: 'erin', sipPort: Number(LAB.LAB_PHONE_LINPHONE_SIP_PORT), rtpPort: Number(LAB.LAB_PHONE_LINPHONE_RTP_PORT) },
});

const TONE_HZ = 440;
let seq = 0;

// A mono 16-bit WAV of `seconds` of a TONE_HZ sine at `rate` (linphone's in-call player plays a file).
function writeToneWav(file, seconds = 60, rate = 8000) {
  const n = seconds * rate;
  const data = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i += 1) data.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * TONE_HZ * i) / rate)), i * 2);
  const h = Buffer.alloc(44);
  h.write('RIFF', 0); h.writeUInt32LE(36 + data.length, 4); h.write('WAVE', 8); h.write('fmt ', 12);
  h.writeUInt32LE(16, 16); h.writeUInt16LE(1, 20); h.writeUInt16LE(1, 22); h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2, 28); h.writeUInt16LE(2, 32); h.writeUInt16LE(16, 34); h.write('data', 36); h.writeUInt32LE(data.length, 40);
  fs.writeFileSync(file, Buffer.concat([h, data]));
}

// Splits a SIP message text (start line, headers, body) into {startLine, method, status, callId, cseq, headers}.
function sipMessage(text, dir, peer, t) {
  const lines = text.replace(/\r/g, '').split('\n');
  const startLine = lines[0].trim();
  const end = lines.indexOf('');
  const headers = lines.slice(1, end < 0 ? undefined : end).join('\n');
  const header = (name, compact) => headers.match(new RegExp(`^(?:${name}${compact ? `|${compact}` : ''})\\s*:\\s*(.*)$`, 'im'))?.[1]?.trim() ?? null;
  const status = startLine.match(/^SIP\/2\.0 (\d{3})/)?.[1];
  return {
    dir, peer, t, startLine, headers, text,
    method: status ? null : startLine.split(' ')[0],
    status: status ? Number(status) : null,
    callId: header('Call-ID', 'i'),
    cseq: header('CSeq'),
  };
}

// The common part of both phones: state, the wait for a state, the SIP trace's queries.
class Phone {
  constructor(kind, opts) {
    const def = PHONES[kind];
    this.kind = kind;
    this.user = opts.user ?? def.user;
    this.sipPort = opts.sipPort ?? def.sipPort;
    this.rtpPort = opts.rtpPort ?? def.rtpPort;
    this.codecs = opts.codecs ?? null;     // null: the phone's defaults; ['PCMA']: only those
    this.aor = `sip:${this.user}@${IMS_DOMAIN}`;
    const id = `${kind}-${this.user}-${process.pid}-${++seq}`;
    this.dir = path.join(logDir(), 'phones', id); // its logs and SIP trace
    fs.mkdirSync(this.dir, { recursive: true });
    // its configuration, which holds the SIP password: beside the run's logs, not in them, the folder the
    // owner's only (secrets.test.mjs: no password in a log; docs/security.md "Secrets")
    this.home = path.join(path.dirname(logDir()), 'phones', id);
    fs.mkdirSync(this.home, { recursive: true, mode: 0o700 });
    this.log = path.join(this.dir, `${kind}.log`);
    this.registered = false;
    this.registerError = null;
    this.call = null;        // {id, direction, peer, state: 'incoming'|'outgoing'|'ringing'|'established'|'closed', reason}
    this.calls = [];         // every call of this run, latest last
    this.waiters = new Set();
  }

  get label() { return `${this.kind} (${this.aor})`; }

  changed() {
    for (const w of [...this.waiters]) if (w.test()) { this.waiters.delete(w); w.resolve(); }
  }

  // Resolves when test() holds (checked on every event), rejects after ms with `what` and the log's tail.
  until(test, ms, what) {
    if (test()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const w = { test, resolve };
      this.waiters.add(w);
      setTimeout(() => {
        if (!this.waiters.delete(w)) return;
        reject(new Error(`${this.label}: ${what} within ${ms} ms (state ${JSON.stringify(this.state())}; log ${this.log})`));
      }, ms);
    });
  }

  newCall(direction, peer, id) {
    this.call = { id, direction, peer, state: direction === 'incoming' ? 'incoming' : 'outgoing', reason: null };
    this.calls.push(this.call);
    this.changed();
  }

  setCallState(state, reason = null) {
    if (!this.call) return;
    this.call.state = state;
    if (reason) this.call.reason = reason;
    this.changed();
  }

  state() {
    return { registered: this.registered, registerError: this.registerError, call: this.call && { ...this.call } };
  }

  async waitRegistered(ms = 10000) {
    await this.until(() => this.registered || this.registerError || this.exited, ms, 'not registered');
    if (!this.registered) throw new Error(`${this.label} did not register: ${this.registerError ?? `exited (${this.exited})`} (log ${this.log})`);
  }

  // Waits for an incoming call; returns the call.
  async waitIncoming(ms = 15000) {
    await this.until(() => this.call?.direction === 'incoming' && this.call.state === 'incoming', ms, 'no incoming call');
    return this.call;
  }

  async waitCallState(state, ms = 15000) {
    await this.until(() => this.call?.state === state || (state !== 'closed' && this.call?.state === 'closed'), ms, `call not ${state}`);
    if (this.call.state !== state) throw new Error(`${this.label}: call ${this.call.state} (${this.call.reason ?? 'no reason'}) instead of ${state} (log ${this.log})`);
    return this.call;
  }

  // The SIP messages of Call-ID `callId` the phone sent ('sent') or received ('received'), in order.
  sipMessages(callId = null) {
    return this.trace().filter((m) => !callId || m.callId === callId);
  }
}

// baresip (baresip-core 1.0): config + accounts written into its folder, `-f` points at it, `-s` traces SIP
// into its log; ctrl_tcp gives commands and events.
class Baresip extends Phone {
  constructor(opts) {
    super('baresip', opts);
    this.ctrlPort = opts.ctrlPort ?? PHONES.baresip.ctrlPort;
    this.pending = new Map();
    this.token = 0;
  }

  writeConfig() {
    // The Debian example config's defaults (opus + G.711 codecs, no video), with a tone source and no sound card.
    fs.writeFileSync(path.join(this.home, 'config'), [
      'poll_method epoll',
      `sip_listen 127.0.0.1:${this.sipPort}`,
      'net_interface 127.0.0.1',
      'call_local_timeout 120',
      'call_max_calls 4',
      `audio_source ausine,${TONE_HZ}`,
      'ausrc_srate 48000',   // ausine makes 48 kHz stereo only; baresip resamples for the 8 kHz mono codecs
      'ausrc_channels 2',
      `rtp_ports ${this.rtpPort}-${this.rtpPort + 1}`,
      'rtcp_mux no',
      'jitter_buffer_delay 5-10',
      'rtp_stats yes',
      'module_path /usr/lib/baresip/modules',
      'module opus.so',
      'module g711.so',
      'module ausine.so',
      'module_tmp uuid.so',
      'module_tmp account.so',
      'module_app menu.so',
      'module_app ctrl_tcp.so',
      `ctrl_tcp_listen 127.0.0.1:${this.ctrlPort}`,
      '',
    ].join('\n'));
    // One account: the lab's P-CSCF as outbound proxy, digest with the users.txt password; calls are answered by the test.
    const params = [`auth_pass=${passwordOf(this.user)}`, `outbound="sip:${ADDRESSES.pcscf}"`, 'regint=600', 'answermode=manual'];
    if (this.codecs) params.push(`audio_codecs=${this.codecs.map((c) => `${c}/8000/1`).join(',')}`);
    fs.writeFileSync(path.join(this.home, 'accounts'), `<${this.aor}>;${params.join(';')}\n`, { mode: 0o600 });
  }

  async start() {
    this.writeConfig();
    this.proc = start(this.label, 'baresip', ['-f', this.home, '-s'], { log: this.log });
    this.proc.done.then((s) => { this.exited = `exit ${s.code ?? s.signal}`; this.changed(); });
    // ctrl_tcp listens once the modules are loaded
    for (const end = Date.now() + 10000; ;) {
      if (this.exited) throw new Error(`${this.label} exited at start: ${this.proc.tail().trim().split('\n').slice(-3).join(' | ')}`);
      const failed = this.proc.tail().match(/^ctrl_tcp: failed.*$/m)?.[0];
      if (failed) throw new Error(`${this.label}: ${failed} (log ${this.log})`);
      try {
        this.sock = await new Promise((resolve, reject) => {
          const s = net.connect(this.ctrlPort, '127.0.0.1', () => resolve(s));
          s.once('error', reject);
        });
        break;
      } catch (e) {
        if (Date.now() > end) throw new Error(`${this.label}: ctrl_tcp 127.0.0.1:${this.ctrlPort} not up within 10 s: ${e.message}`);
        await sleep(100);
      }
    }
    let buf = Buffer.alloc(0);
    this.sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {   // netstrings: <length>:<json>,
        const colon = buf.indexOf(0x3a);
        if (colon < 0) break;
        const len = Number(buf.subarray(0, colon).toString());
        if (buf.length < colon + 1 + len + 1) break;
        const json = buf.subarray(colon + 1, colon + 1 + len).toString();
        buf = buf.subarray(colon + 2 + len);
        try { this.onMessage(JSON.parse(json)); } catch { /* a line we cannot read: the log has it */ }
      }
    });
    this.sock.on('error', () => {});
    await this.command('reginfo').catch((e) => { throw new Error(`${this.label}: 127.0.0.1:${this.ctrlPort} is not its ctrl_tcp: ${e.message}`); });
    this.pollRegistration();
    return this;
  }

  // reginfo until it shows the account OK or ERR: the REGISTER_OK event may come before we are connected.
  async pollRegistration() {
    for (const end = Date.now() + 15000; Date.now() < end && !this.exited && !this.registered && !this.registerError;) {
      // eslint-disable-next-line no-control-regex
      const info = (await this.command('reginfo').catch(() => '')).replace(/\u001b\[[0-9;]*m/g, '');
      if (/\bOK\b/.test(info)) { this.registered = true; this.changed(); return; }
      if (/\bERR\b/.test(info)) { this.registerError = info.trim().replace(/\s+/g, ' '); this.changed(); return; }
      await sleep(200);
    }
  }

  onMessage(m) {
    if (m.response) {
      const p = this.pending.get(m.token);
      if (p) { this.pending.delete(m.token); p(m); }
      return;
    }
    if (!m.event) return;
    switch (m.type) {
      case 'REGISTER_OK': this.registered = true; this.registerError = null; break;
      case 'REGISTER_FAIL': this.registered = false; this.registerError = m.param ?? 'REGISTER failed'; break;
      case 'CALL_INCOMING': this.newCall('incoming', m.peeruri, m.id); break;
      case 'CALL_RINGING': if (!this.call || this.call.state === 'closed') this.newCall('outgoing', m.peeruri, m.id); this.setCallState('ringing'); break;
      case 'CALL_PROGRESS': if (!this.call || this.call.state === 'closed') this.newCall('outgoing', m.peeruri, m.id); break;
      case 'CALL_ESTABLISHED': if (!this.call || this.call.state === 'closed') this.newCall(m.direction, m.peeruri, m.id); this.setCallState('established'); break;
      case 'CALL_CLOSED': this.setCallState('closed', m.param ?? null); break;
      default: break;
    }
    this.changed();
  }

  async command(command, params = undefined) {
    const token = `t${++this.token}`;
    const json = JSON.stringify({ command, ...(params != null ? { params } : {}), token });
    const reply = new Promise((resolve, reject) => {
      this.pending.set(token, resolve);
      setTimeout(() => { if (this.pending.delete(token)) reject(new Error(`${this.label}: no answer to '${command}' within 5 s`)); }, 5000);
    });
    this.sock.write(`${Buffer.byteLength(json)}:${json},`);
    const r = await reply;
    if (!r.ok) throw new Error(`${this.label}: '${command}' failed: ${r.data}`);
    return r.data;
  }

  async dial(uri) {
    this.newCall('outgoing', uri, null);
    await this.command('dial', uri);
  }

  async answer() { await this.command('accept'); }

  async hangup() { await this.command('hangup'); }

  // The SIP trace (-s): each message in the log as ESC[36;1m "#", "UDP <src> -> <dst>", the message, ESC[;m.
  trace() {
    const own = `127.0.0.1:${this.sipPort}`;
    const text = fs.readFileSync(this.log, 'utf8');
    const out = [];
    for (const m of text.matchAll(/\u001b\[36;1m#\r?\n(?:UDP|TCP|TLS) (\S+) -> (\S+)\r?\n([\s\S]*?)\u001b\[;m/g)) {
      const sent = m[1] === own;
      out.push(sipMessage(m[3], sent ? 'sent' : 'received', sent ? m[2] : m[1], null));
    }
    return out;
  }

  async stop() {
    this.sock?.destroy();
    if (this.proc) await stop(this.proc, 'SIGTERM', 3000);
  }
}

// linphone (linphone-cli 5.1: linphone-daemon): linphonerc in its folder, HOME pointed there for its
// databases; commands over the daemon's Unix socket (--pipe), events on its stdout, SIP in its log (--log).
class Linphone extends Phone {
  constructor(opts) {
    super('linphone', opts);
    this.pipeName = `lab-linphone-${process.pid}-${seq}`;
    this.tone = path.join(this.dir, 'tone.wav');
    this.sipLog = path.join(this.dir, 'linphone-sip.log');
    this.queue = Promise.resolve();
    this.reply = '';
  }

  writeConfig() {
    fs.writeFileSync(path.join(this.home, 'linphonerc'), [
      '[sip]', `sip_port=${this.sipPort}`, 'sip_tcp_port=0', 'sip_tls_port=0',
      '[rtp]', `audio_rtp_port=${this.rtpPort}`,
      '[sound]', 'echocancellation=0',
      '[video]', 'capture=0', 'display=0', 'automatically_accept=0', 'automatically_initiate=0',
      // the account: the lab's P-CSCF as registrar proxy and outbound proxy (route), as an IMS UE is set up;
      // without the route linphone sends its INVITEs straight to the Service-Route's S-CSCF
      '[proxy_0]', `reg_proxy=<sip:${ADDRESSES.pcscf};transport=udp>`, `reg_route=<sip:${ADDRESSES.pcscf};transport=udp;lr>`,
      `reg_identity=${this.aor}`, `realm=${IMS_DOMAIN}`, 'reg_expires=600', 'reg_sendregister=1', 'publish=0',
      '[auth_info_0]', `username=${this.user}`, `userid=${this.user}`, `passwd=${passwordOf(this.user)}`, `realm=${IMS_DOMAIN}`, `domain=${IMS_DOMAIN}`,
      '',
    ].join('\n'), { mode: 0o600 });
    fs.mkdirSync(path.join(this.home, '.local', 'share', 'linphone'), { recursive: true });   // its databases
    writeToneWav(this.tone);
  }

  async start() {
    this.writeConfig();
    this.proc = start(this.label, 'linphone-daemon', ['--config', path.join(this.home, 'linphonerc'), '--pipe', this.pipeName, '--log', this.sipLog],
      { log: this.log, env: { ...process.env, HOME: this.home, XDG_CONFIG_HOME: this.home, XDG_DATA_HOME: path.join(this.home, '.local', 'share') } });
    this.proc.done.then((s) => { this.exited = `exit ${s.code ?? s.signal}`; this.changed(); });
    const sockPath = path.join('/tmp', this.pipeName);
    for (const end = Date.now() + 15000; ;) {
      if (this.exited) throw new Error(`${this.label} exited at start: ${this.proc.tail().trim().split('\n').slice(-3).join(' | ')}`);
      try {
        this.sock = await new Promise((resolve, reject) => {
          const s = net.connect(sockPath, () => resolve(s));
          s.once('error', reject);
        });
        break;
      } catch (e) {
        if (Date.now() > end) throw new Error(`${this.label}: its socket ${sockPath} not up within 15 s: ${e.message}`);
        await sleep(100);
      }
    }
    this.sock.on('data', (d) => { this.reply += d.toString(); });
    this.sock.on('error', () => {});
    if (this.codecs) {
      await this.command('audio-codec-disable ALL');
      for (const c of this.codecs) await this.command(`audio-codec-enable ${c}/8000/1`);
    }
    this.pollRegistration();
    this.pollEvents();
    return this;
  }

  // With a client on its socket the daemon queues its events for `pop-event` (one per call, "Size:" left).
  async pollEvents() {
    while (!this.exited && !this.stopping) {
      const r = await this.command('pop-event').catch(() => '');
      if (/^Event:/m.test(r)) this.onEvent(r.split('\n')); else await sleep(100);
    }
  }

  // register-status until it says Ok or failed (the daemon sends no registration event on its stdout).
  async pollRegistration() {
    for (const end = Date.now() + 15000; Date.now() < end && !this.exited;) {
      const r = await this.command('register-status ALL').catch(() => '');
      const st = r.match(/State:\s*(\S+)/)?.[1];
      if (st === 'LinphoneRegistrationOk') { this.registered = true; this.changed(); return; }
      if (st === 'LinphoneRegistrationFailed') {
        const why = fs.readFileSync(this.sipLog, 'utf8').match(/belle-sip-error-(.*(?:bind|listening point|no channel).*)$/m)?.[1];
        this.registerError = `registration failed${why ? `: ${why}` : ''}`;
        this.changed();
        return;
      }
      await sleep(200);
    }
  }

  onEvent(lines) {
    const text = lines.join('\n');
    const ev = text.match(/^Event:\s*(\S+)/m)?.[1];
    const from = text.match(/^From:\s*(.*)$/m)?.[1]?.trim();
    const id = text.match(/^Id:\s*(\d+)/m)?.[1];
    if (!ev) return;
    switch (ev) {
      case 'LinphoneCallIncomingReceived': this.newCall('incoming', from, id); break;
      case 'LinphoneCallOutgoingInit': if (this.call && !this.call.id) this.call.id = id; break;
      case 'LinphoneCallOutgoingRinging': case 'LinphoneCallOutgoingEarlyMedia': this.setCallState('ringing'); break;
      case 'LinphoneCallStreamsRunning':
        if (this.call?.state !== 'established') {
          this.setCallState('established');
          // the tone into the call: the daemon has no sound card to capture from
          this.command(`incall-player-start ${this.tone} ${id}`).catch(() => {});
        }
        break;
      case 'LinphoneCallError': this.setCallState('closed', 'error'); break;
      case 'LinphoneCallEnd': case 'LinphoneCallReleased': if (this.call?.state !== 'closed') this.setCallState('closed', ev); break;
      default: break;
    }
  }

  // One command at a time; its answer is what the socket gives until it has been quiet 50 ms.
  command(cmd) {
    const run = async () => {
      this.reply = '';
      this.sock.write(`${cmd}\n`);
      const end = Date.now() + 5000;
      let last = '';
      for (;;) {
        await sleep(50);
        if (this.reply && this.reply === last) break;
        last = this.reply;
        if (Date.now() > end) throw new Error(`${this.label}: no answer to '${cmd.split(' ')[0]}' within 5 s`);
      }
      const r = this.reply;
      if (/^Status:\s*Error/m.test(r)) throw new Error(`${this.label}: '${cmd.split(' ')[0]}' failed: ${r.match(/^Reason:\s*(.*)$/m)?.[1] ?? r.trim()}`);
      return r;
    };
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => {});
    return p;
  }

  async dial(uri) {
    this.newCall('outgoing', uri, null);
    const r = await this.command(`call ${uri}`);
    this.call.id = r.match(/^Id:\s*(\d+)/m)?.[1] ?? this.call.id;
  }

  async answer() { await this.command(`answer ${this.call?.id ?? ''}`.trim()); }

  async hangup() { await this.command(`terminate ${this.call?.id ?? ''}`.trim()); }

  // belle-sip's log: "message sent to [UDP://a:p], size: [n] bytes" / "received [n] new bytes from [UDP://a:p]:",
  // then the message up to the next timestamped log line.
  trace() {
    if (!fs.existsSync(this.sipLog)) return [];
    const lines = fs.readFileSync(this.sipLog, 'utf8').split('\n');
    const out = [];
    for (let i = 0; i < lines.length; i += 1) {
      const m = lines[i].match(/^(\S+ \S+) belle-sip-message-channel \[\w+\]: (?:message sent to \[\w+:\/\/([^\]]+)\]|received \[\d+\] new bytes from \[\w+:\/\/([^\]]+)\])/);
      if (!m) continue;
      const body = [];
      for (i += 1; i < lines.length && !/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/.test(lines[i]); i += 1) body.push(lines[i]);
      i -= 1;
      if (!/^(SIP\/2\.0 \d{3}|[A-Z]+ \S+ SIP\/2\.0)/.test(body[0] ?? '')) continue;   // keep-alives and the like
      out.push(sipMessage(body.join('\n'), m[2] ? 'sent' : 'received', m[2] ?? m[3], m[1]));
    }
    return out;
  }

  async stop() {
    this.stopping = true;
    if (this.proc && !this.exited && this.registered) {
      // de-register first: a binding left behind would fork the next instance's calls to this dead contact
      // (the account is gone from register-status at once; the de-REGISTER's 200 in its trace says it is done)
      const regOks = () => this.trace().filter((m) => m.dir === 'received' && m.status === 200 && /\bREGISTER$/.test(m.cseq ?? '')).length;
      const before = regOks();
      await this.command('unregister ALL').catch(() => {});
      for (const end = Date.now() + 3000; Date.now() < end && regOks() === before;) await sleep(100);
    }
    if (this.proc && !this.exited) {
      await this.command('quit').catch(() => {});
      if (await Promise.race([this.proc.done.then(() => true), sleep(3000).then(() => false)])) { this.sock?.destroy(); return; }
    }
    this.sock?.destroy();
    if (this.proc) await stop(this.proc, 'SIGTERM', 3000);
  }
}

// startPhone('baresip'|'linphone', {user?, codecs?: ['PCMA'] | null, sipPort?, rtpPort?}) -> a started phone
// (registration under way: await phone.waitRegistered()).
export async function startPhone(kind, opts = {}) {
  if (kind === 'baresip') return new Baresip(opts).start();
  if (kind === 'linphone') return new Linphone(opts).start();
  throw new Error(`unknown phone '${kind}' (baresip | linphone)`);
}

// The data-channel IMS UE (harness/runner/dc-ue.py: SIP through the P-CSCF, RTP echo, aiortc data channels)
// driven from Node: start it, wait for its JSON-line events, tell it to call or hang up. Used by
// datachannel-calls.test.mjs and `./lab demo --datachannel` (docs/datachannel.md "The IMS UE").
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import path from 'node:path';
import { ADDRESSES, LAB } from '../kit/addresses.mjs';
import { labRoot, logDir } from '../kit/env.mjs';
import { adopt } from '../kit/procs.mjs';

export const DC_UE = 'ue10';
export const PYTHON = path.join(labRoot(), 'out', 'pyenv', 'bin', 'python');

// Starts the UE as `user`; resolves {events, waitFor(pred, ms, what), send(cmd), stop()} once it registered.
// textLoss/textSeed: the RFC 4103 text's drop probability each way (dc-ue.py --text-loss/--text-seed). python: the
// interpreter (default the lab's pyenv, which has aiortc). The UE is in the supervisor's ledger (kit/procs.mjs adopt).
export async function startDcUe(user = DC_UE, { messages = 20, intervalMs = 20, textLoss = 0, textSeed = 4103, python = PYTHON } = {}) {
  if (!fs.existsSync(python)) throw new Error(`${python} is missing: ./lab builds the harness's Python packages (aiortc) there (build_pyenv)`);
  const log = fs.createWriteStream(path.join(logDir(), `dc-ue-${user}.log`), { flags: 'a' });
  const child = spawn(python, [path.join(labRoot(), 'harness', 'runner', 'dc-ue.py'), user, '--messages', String(messages),
    '--interval-ms', String(intervalMs), '--text-loss', String(textLoss), '--text-seed', String(textSeed)], {
    stdio: ['pipe', 'pipe', 'pipe'],
    // on the 3GPP core (LAB_IMS=3gpp) the UE registers with SIP digest as its HSS subscription says (ims-sim/3gpp/subscribers.txt)
    env: { ...process.env, LAB_PCSCF: LAB.LAB_PCSCF ?? ADDRESSES.pcscf, IMS_USERS: path.join(labRoot(), 'ims-sim', 'users.txt'),
      ...(process.env.LAB_IMS === '3gpp' ? { IMS_SUBSCRIBERS: path.join(labRoot(), 'ims-sim', '3gpp', 'subscribers.txt') } : {}),
      LAB_IMS_DOMAIN: LAB.LAB_IMS_DOMAIN ?? 'ims.lab' },
  });
  adopt(`dc-ue-${user}`, child.pid);
  const events = [];
  const waiters = new Set();
  let buf = '';
  let stderr = '';
  let exited = null;
  const check = () => { for (const w of waiters) w(); };
  child.stdout.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      log.write(`${new Date().toISOString()} ${line}\n`);
      try { events.push(JSON.parse(line)); } catch { /* not an event */ }
    }
    check();
  });
  child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); log.write(d); });
  // killed by a signal, exit's code is null: the signal's name then, so that nothing waits for a UE that is gone
  child.on('exit', (code, sig) => { exited = code ?? sig; check(); });
  child.stdin.on('error', () => { /* the UE is gone (EPIPE): its exit says so */ });
  // The first event after index `from` that pred accepts; rejects with `what` and the UE's last words on timeout.
  const waitFor = (pred, ms, what, from = 0) => new Promise((resolve, reject) => {
    const look = () => {
      const e = events.slice(from).find(pred);
      if (e) { done(); resolve(e); return; }
      const err = events.slice(from).find((x) => x.event === 'error');
      if (err) { done(); reject(new Error(`the IMS UE ${user} failed while waiting for ${what}: ${err.error}`)); return; }
      if (exited !== null) { done(); reject(new Error(`the IMS UE ${user} exited (${exited}) before ${what}: ${stderr.slice(-600)}`)); }
    };
    const timer = setTimeout(() => { done(); reject(new Error(`the IMS UE ${user}: no ${what} within ${ms} ms (events: ${JSON.stringify(events.slice(-5))}; stderr: ${stderr.slice(-400)})`)); }, ms);
    const done = () => { clearTimeout(timer); waiters.delete(look); };
    waiters.add(look);
    look();
  });
  const ue = {
    user,
    pid: child.pid,
    events,
    waitFor,
    mark: () => events.length,
    send: (cmd) => child.stdin.write(`${JSON.stringify(cmd)}\n`),
    async stop() {
      if (exited === null) {
        ue.send({ cmd: 'quit' });
        await Promise.race([new Promise((r) => child.on('exit', r)), new Promise((r) => setTimeout(r, 4000))]);
        if (exited === null) child.kill('SIGTERM');
      }
      log.end();
    },
  };
  try {
    await waitFor((e) => e.event === 'registered', 15000, 'its registration');
  } catch (e) {
    await ue.stop();
    throw e;
  }
  return ue;
}

export const sleepMs = (ms) => new Promise((r) => setTimeout(r, ms));

// The data-channel endpoint's session list (its control protocol's `list`, the raw bencoded reply): a test checks that
// no session outlives its call or its removal (LAB_DATACHANNEL_CTL, docs/datachannel.md "Control protocol").
export function endpointList() {
  const ctl = LAB.LAB_DATACHANNEL_CTL;
  const [host, port] = [ctl.slice(0, ctl.lastIndexOf(':')), Number(ctl.slice(ctl.lastIndexOf(':') + 1))];
  return new Promise((resolve, reject) => {
    const s = dgram.createSocket('udp4');
    const timer = setTimeout(() => { s.close(); reject(new Error(`the data-channel endpoint at ${ctl} did not answer 'list'`)); }, 2000);
    s.on('message', (m) => { clearTimeout(timer); s.close(); resolve(m.toString('latin1')); });
    s.send(Buffer.from('dcl1 d7:command4:liste', 'latin1'), port, host);
  });
}

// Polls fn until it returns a truthy value (then returns it); throws `what` after ms.
export async function waitUntil(fn, ms, what) {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleepMs(50);
  }
}

// One answered call's chat: waits for the chat channel at both ends, sends `n` messages from the page (paced
// `intervalMs`) while the UE sends its own n, waits until each side has the other's n. Returns
// {page: the page's chat channel summary (data-channels.js), info: the gateway's call info meanwhile}.
export async function chatBothWays({ client, ue, callId, mark, n, intervalMs = 20, callInfo, label = 'browser' }) {
  const chat = await waitUntil(async () => (await client.dataChannels(callId))?.find((c) => c.state === 'open'), 10000,
    `the page's chat channel to open (${JSON.stringify(await client.dataChannels(callId))})`);
  await ue.waitFor((e) => e.event === 'open' && e.label === chat.label, 10000, 'its chat channel to open', mark);
  for (let i = 0; i < n; i++) {
    if (!await client.sendData(callId, `hello from ${label} #${i}`)) throw new Error(`the page could not send message ${i} on ${chat.label}`);
    await sleepMs(intervalMs);
  }
  await ue.waitFor((e) => e.event === 'received' && e.label === chat.label && e.count >= n, 10000, `${n} messages from the page`, mark);
  const page = await waitUntil(async () => (await client.dataChannels(callId)).find((c) => c.label === chat.label && c.received >= n), 10000,
    `${n} messages from the IMS UE at the page`);
  return { chat, page, info: await callInfo(callId) };
}

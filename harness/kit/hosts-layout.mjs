// The hosts layout of `./lab up --gateways G --relays R` (harness/lib/hosts-up.sh) for a test beside the lab it runs
// in: started into its own run folder, ready when hosts-up.sh prints `READY <entry URL>`, stopped by SIGTERM (its
// supervisor stops the components newest first and deletes the namespaces). docs/scale-out.md "Hosts".
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { LAB } from './addresses.mjs';
import { signal, start, stop, waitFor } from './procs.mjs';

/** The i-th address after BASE (198.18.16.20, 2 -> 198.18.16.22). */
export const hostAddr = (base, i) => `${base.slice(0, base.lastIndexOf('.'))}.${Number(base.slice(base.lastIndexOf('.') + 1)) + i}`;

/** A host's network namespace (labh-<name>). */
export const hostNs = (name) => `${LAB.LAB_NS_HOSTS_PREFIX}${name}`;

/** The browsers' entry: HAProxy's host address on the lab port. */
export const HOSTS_ENTRY = `http://${LAB.LAB_HOSTS_HAPROXY_ADDR}:${Number(LAB.LAB_GW_PORT)}`;

/**
 * Start the layout (G gateways, R relays) into RUN, logging to LOG; resolves with the process once it is ready.
 * ims: the IMS host's core, 'plain' (the light Kamailio) or '3gpp' (the 3GPP core, as `./lab up --ims 3gpp`).
 */
export async function upHostsLayout({ root, run, name, log, gateways = 2, relays = 2, ims = 'plain', readyMs = 240000 }) {
  assert.ok(['plain', '3gpp'].includes(ims), `upHostsLayout: ims must be plain or 3gpp, not ${ims}`);
  fs.rmSync(run, { recursive: true, force: true });
  let ready = null;
  const layout = start(name, 'bash', [path.join(root, 'harness', 'lib', 'hosts-up.sh'), run, String(gateways), String(relays)],
    { log, env: { ...process.env, LAB_IMS: ims }, onLine: (l) => { if (l.startsWith('READY ')) ready = l.slice(6).trim(); } });
  for (const end = Date.now() + readyMs; !ready;) {
    const done = await waitFor(layout, 500);
    if (done) throw new Error(`the hosts layout did not come up (${JSON.stringify(done)}): ${layout.tail().slice(-800)}`);
    if (Date.now() > end) throw new Error(`the hosts layout was not up within ${readyMs / 1000} s: ${layout.tail().slice(-800)}`);
  }
  assert.equal(ready, HOSTS_ENTRY, 'the browsers\' entry is HAProxy\'s host address on the lab port');
  return layout;
}

/** Stop the layout and check that none of its namespaces is left. */
export async function downHostsLayout(layout) {
  if (layout) await stop(layout, 'SIGTERM', 60000);
  const left = fs.existsSync('/run/netns') ? fs.readdirSync('/run/netns').filter((n) => n.startsWith(LAB.LAB_NS_HOSTS_PREFIX)) : [];
  assert.deepEqual(left, [], `namespaces left after the layout stopped: ${left.join(' ')}`);
}

/** The registered identities of the page's session, asked through the layout's entry (HAProxy routes by the token). */
export async function sessionIdentities(client) {
  const token = await client.token();
  assert.ok(token, 'the page holds no access token: not logged in');
  const r = await fetch(`${HOSTS_ENTRY}/api/v1/sessions/current`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(r.status, 200, `GET /api/v1/sessions/current through HAProxy: ${r.status}`);
  const ids = (await r.json()).registration?.identities ?? [];
  assert.ok(ids.length > 0, 'the gateway reports no registered identities for the page\'s session');
  return ids;
}

/**
 * A SIPp UE of the IMS host (sipp-scenarios/run-ue.sh MODE USER ARG in namespace labh-ims, its SIP and media on the
 * host's address, registered at the P-CSCF there; with ims '3gpp' by IMS-AKA). Logs in LOGDIR. Resolves to
 * {done: Promise<{code, output}>, kill()}; `output` is the tail of what it printed.
 */
export function ueOnImsHost({ root, logDir, mode, user, arg, ims = 'plain', timeoutMs = 60000 }) {
  const env = { ...process.env, LAB_LOGDIR: logDir, KAMAILIO: `${LAB.LAB_HOSTS_IMS_ADDR}:${LAB.LAB_PCSCF.split(':')[1]}`, UE_IP: LAB.LAB_HOSTS_IMS_ADDR };
  delete env.IMS_AKA_KEYS;
  if (ims === '3gpp') env.IMS_AKA_KEYS = path.join(root, 'ims-sim', '3gpp', 'sipp', 'ue-keys.txt');
  const args = ['netns', 'exec', hostNs('ims'), 'bash', path.join(root, 'sipp-scenarios', 'run-ue.sh'), mode, user, ...(arg != null ? [String(arg)] : [])];
  const proc = start(`ue-${mode}-${user}`, 'ip', args, { log: path.join(logDir, `ue-${mode}-${user}-${process.pid}.log`), env, group: true });
  const kill = () => signal(proc, 'SIGTERM');
  const timer = setTimeout(kill, timeoutMs);
  const done = proc.done.then(({ code, signal: sig }) => {
    clearTimeout(timer);
    return { code: code ?? (sig ? 128 : 1), output: proc.tail().trim().split('\n').slice(-10).join('\n') };
  });
  return { done, kill };
}

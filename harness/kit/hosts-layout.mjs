// The hosts layout of `./lab up --gateways G --relays R` (harness/lib/hosts-up.sh) for a test beside the lab it runs
// in: started into its own run folder, ready when hosts-up.sh prints `READY <entry URL>`, stopped by SIGTERM (its
// supervisor stops the components newest first and deletes the namespaces). docs/scale-out.md "Hosts".
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { LAB } from './addresses.mjs';
import { start, stop, waitFor } from './procs.mjs';

/** The i-th address after BASE (198.18.16.20, 2 -> 198.18.16.22). */
export const hostAddr = (base, i) => `${base.slice(0, base.lastIndexOf('.'))}.${Number(base.slice(base.lastIndexOf('.') + 1)) + i}`;

/** A host's network namespace (labh-<name>). */
export const hostNs = (name) => `${LAB.LAB_NS_HOSTS_PREFIX}${name}`;

/** The browsers' entry: HAProxy's host address on the lab port. */
export const HOSTS_ENTRY = `http://${LAB.LAB_HOSTS_HAPROXY_ADDR}:${Number(LAB.LAB_GW_PORT)}`;

/** Start the layout (G gateways, R relays) into RUN, logging to LOG; resolves with the process once it is ready. */
export async function upHostsLayout({ root, run, name, log, gateways = 2, relays = 2, readyMs = 240000 }) {
  fs.rmSync(run, { recursive: true, force: true });
  let ready = null;
  const layout = start(name, 'bash', [path.join(root, 'harness', 'lib', 'hosts-up.sh'), run, String(gateways), String(relays)],
    { log, onLine: (l) => { if (l.startsWith('READY ')) ready = l.slice(6).trim(); } });
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

// Integration (3GPP core, `./lab test --ims 3gpp` and the full run's 3GPP pass): P-CSCF discovery as a UE does it
// (TS 24.229 §9.2.1, RFC 3263; docs/ims-sim.md "Connecting your IMS"). The lab's gateway is given the name
// pcscf.ims.lab and the core's DNS (ims-sim/3gpp/start-dns.sh: NAPTR → SRV → A), so every call of the 3GPP pass
// goes to the P-CSCF found by name; here: that it was found that way. Then failover: a gateway of this test's own
// (HTTP 8095, SIP 5075) is given pcscf-pool.ims.lab on a DNS of this test's own (dnsmasq on 127.0.0.1:5354) whose
// SRV set is priority 10 → 127.0.0.1:5059 (nothing listens) and priority 20 → the real P-CSCF: carol's REGISTER
// times out at the first (lab.ims.register-timeout-ms 3 s) and she is registered through the second.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ADDRESSES, LAB } from '../kit/addresses.mjs';
import { gatewayUrl, logDir, passwordOf } from '../kit/env.mjs';
import { start, stop, sleep } from '../kit/procs.mjs';
import { commandOf } from '../kit/restart.mjs';
import * as gw from '../runner/gateway.mjs';

const HTTP_PORT = Number(LAB.LAB_DNS_TEST_GW_PORT);
const SIP_PORT = Number(LAB.LAB_DNS_TEST_GW_SIP_PORT);
const DNS = `${LAB.LAB_LOOPBACK}:${LAB.LAB_DNS_TEST_SERVER_PORT}`;
const DEAD_PORT = Number(LAB.LAB_DNS_TEST_DEAD_PORT); // nothing listens there
const HOST = new URL(gatewayUrl()).hostname;
const BASE = `${new URL(gatewayUrl()).protocol}//${HOST}:${HTTP_PORT}`;
const coreDnsLog = () => fs.readFileSync(path.join(logDir(), 'ims3gpp', 'dnsmasq.log'), 'utf8');

let dns;
let proc;

before(() => {
  assert.equal(process.env.LAB_IMS, '3gpp', 'run with ./lab test --ims 3gpp');
});

after(async () => {
  if (proc) await stop(proc, 'SIGTERM', 15000);
  if (dns) await stop(dns);
});

async function api(method, p, { token, body } = {}) {
  const headers = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body) headers['content-type'] = 'application/json';
  const res = await fetch(`${BASE}${p}`, { method, headers, body: body && JSON.stringify(body), signal: AbortSignal.timeout(20000) });
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* keep the text */ }
  return { status: res.status, body: json ?? text };
}

test('the lab\'s gateway found its P-CSCF by name: NAPTR pcscf.ims.lab → SRV _sip._udp.pcscf.ims.lab → A, at the core\'s DNS', async () => {
  const h = await gw.health();
  assert.equal(h.imsProxy, 'pcscf.ims.lab', `the gateway was not given the name: lab.ims.proxy ${h.imsProxy}`);
  assert.equal(h.imsPcscf, ADDRESSES.pcscf, `the P-CSCF target in use: ${h.imsPcscf}`);
  assert.equal(h.imsTransport, 'udp', 'the NAPTR with the lowest order is SIP+D2U');
  const log = coreDnsLog();
  for (const q of ['query[NAPTR] pcscf.ims.lab', 'query[SRV] _sip._udp.pcscf.ims.lab', 'query[A] pcscf.ims.lab']) {
    assert.ok(log.includes(q), `the core's dnsmasq did not log "${q}" (ims3gpp/dnsmasq.log)`);
  }
});

test('failover: the first SRV target (priority 10) does not answer, carol registers through the second (priority 20, the P-CSCF)', { timeout: 150000 }, async () => {
  const dnsmasq = ['/usr/sbin/dnsmasq', '/sbin/dnsmasq'].find((f) => fs.existsSync(f)) ?? 'dnsmasq'; // root's PATH may lack sbin
  dns = start('dns-pool', dnsmasq, ['--keep-in-foreground', '--log-facility=-', '--no-resolv', '--no-hosts', '--no-poll',
    '--conf-file=/dev/null', '--pid-file=', '--user=root', '--group=root', '--listen-address=127.0.0.1', '--bind-interfaces',
    `--port=${DNS.split(':')[1]}`, '--local-ttl=60', '--local=/ims.lab/', '--log-queries',
    '--host-record=pcscf.pool.ims.lab,127.0.0.1', '--host-record=down.pool.ims.lab,127.0.0.1',
    '--naptr-record=pcscf-pool.ims.lab,10,50,s,SIP+D2U,,_sip._udp.pcscf-pool.ims.lab',
    `--srv-host=_sip._udp.pcscf-pool.ims.lab,down.pool.ims.lab,${DEAD_PORT},10,10`,
    `--srv-host=_sip._udp.pcscf-pool.ims.lab,pcscf.pool.ims.lab,${ADDRESSES.pcscf.split(':')[1]},20,10`], { log: path.join(logDir(), 'dns-pool.log') });
  await sleep(300);
  assert.equal(dns.child.exitCode, null, `the test's dnsmasq exited: ${dns.tail()}`);
  let args = commandOf('gateway').argv.slice(1); // java -jar ... as ./lab started the lab's gateway
  for (const [name, value] of [['server.port', HTTP_PORT], ['lab.sip.port', SIP_PORT], ['lab.rtpengine.dtmf-log', ''],
    ['lab.ims.proxy', 'pcscf-pool.ims.lab'], ['lab.ims.dns', DNS], ['lab.ims.register-timeout-ms', 3000]]) {
    args = gw.withOption(args, name, value);
  }
  proc = await gw.startOwnGateway('gateway-dns', args, BASE, { label: 'gateway given pcscf-pool.ims.lab' });
  const before = (await api('GET', '/api/v1/health')).body;
  assert.equal(before.imsPcscf, `127.0.0.1:${DEAD_PORT}`, `the priority-10 target comes first: ${JSON.stringify(before)}`);

  const t0 = Date.now();
  const login = await api('POST', '/api/v1/sessions', { body: { user: 'carol', password: passwordOf('carol') } });
  assert.ok(login.status === 200 || login.status === 201, `carol's login failed: HTTP ${login.status} ${JSON.stringify(login.body)}`);
  const token = login.body.token;
  try {
    const s = (await api('GET', '/api/v1/sessions/current', { token })).body;
    const flow = s.registration?.sipFlow ?? [];
    assert.ok(flow.includes(`P-CSCF 127.0.0.1:${DEAD_PORT} did not answer the REGISTER: REGISTER again via ${ADDRESSES.pcscf}`),
      `no failover in carol's REGISTER flow: ${flow.join(', ')}`);
    assert.ok(flow.includes('recv 200'), `carol not registered through the second target: ${flow.join(', ')}`);
    assert.ok(Date.now() - t0 >= 3000, 'the first target was not waited for (register timeout 3 s)');
    const h = (await api('GET', '/api/v1/health')).body;
    assert.equal(h.imsPcscf, ADDRESSES.pcscf, `after the failover the P-CSCF in use: ${h.imsPcscf}`);
  } finally {
    const out = await api('DELETE', '/api/v1/sessions/current', { token });
    assert.ok(out.status < 300, `carol's logout: HTTP ${out.status}`);
  }
});

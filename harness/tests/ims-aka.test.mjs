// The page's IMS-AKA (webclient/public/ims-aka.js, aka-socket.js): Milenage on WebCrypto against the TS 35.208
// test sets 1-6, the AKA nonce's AUTN check, HA1 with RES as octets (RFC 3310), and the JsSIP socket that adds the
// Bearer token to every request and answers AKAv1-MD5 challenges. No lab needed (node's WebCrypto).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Milenage, akaChallenge, akaHa1, akaAuthorization, hexToBytes, bytesToHex } from '../../webclient/public/ims-aka.js';
import { AkaSocket, authParam } from '../../webclient/public/aka-socket.js';

// TS 35.208 §4.3: K, OPc, RAND, SQN, AMF, f1, f1*, f2, f5, f3, f4, f5*
const SETS = [
  ['465b5ce8b199b49faa5f0a2ee238a6bc', 'cd63cb71954a9f4e48a5994e37a02baf', '23553cbe9637a89d218ae64dae47bf35', 'ff9bb4d0b607', 'b9b9',
    '4a9ffac354dfafb3', '01cfaf9ec4e871e9', 'a54211d5e3ba50bf', 'aa689c648370', 'b40ba9a3c58b2a05bbf0d987b21bf8cb', 'f769bcd751044604127672711c6d3441', '451e8beca43b'],
  ['0396eb317b6d1c36f19c1c84cd6ffd16', '53c15671c60a4b731c55b4a441c0bde2', 'c00d603103dcee52c4478119494202e8', 'fd8eef40df7d', 'af17',
    '5df5b31807e258b0', 'a8c016e51ef4a343', 'd3a628ed988620f0', 'c47783995f72', '58c433ff7a7082acd424220f2b67c556', '21a8c1f929702adb3e738488b9f5c5da', '30f1197061c1'],
  ['fec86ba6eb707ed08905757b1bb44b8f', '1006020f0a478bf6b699f15c062e42b3', '9f7c8d021accf4db213ccff0c7f71a6a', '9d0277595ffc', '725c',
    '9cabc3e99baf7281', '95814ba2b3044324', '8011c48c0c214ed2', '33484dc2136b', '5dbdbb2954e8f3cde665b046179a5098', '59a92d3b476a0443487055cf88b2307b', 'deacdd848cc6'],
  ['9e5944aea94b81165c82fbf9f32db751', 'a64a507ae1a2a98bb88eb4210135dc87', 'ce83dbc54ac0274a157c17f80d017bd6', '0b604a81eca8', '9e09',
    '74a58220cba84c49', 'ac2cc74a96871837', 'f365cd683cd92e96', 'f0b9c08ad02e', 'e203edb3971574f5a94b0d61b816345d', '0c4524adeac041c4dd830d20854fc46b', '6085a86c6f63'],
  ['4ab1deb05ca6ceb051fc98e77d026a84', 'dcf07cbd51855290b92a07a9891e523e', '74b0cd6031a1c8339b2b6ce2b8c4a186', 'e880a1b580b6', '9f07',
    '49e785dd12626ef2', '9e85790336bb3fa2', '5860fc1bce351e7e', '31e11a609118', '7657766b373d1c2138f307e3de9242f9', '1c42e960d89b8fa99f2744e0708ccb53', 'fe2555e54aa9'],
  ['6c38a116ac280c454f59332ee35c8c4f', '3803ef5363b947c6aaa225e58fae3934', 'ee6466bc96202c5a557abbeff8babf63', '414b98222181', '4464',
    '078adfb488241a57', '80246b8d0186bcf1', '16c8233f05a0ac28', '45b0f69ab06c', '3f8c7587fe8e4b233af676aede30ba3b', 'a7466cc1e6b2a1337d49d3b66e95d7b4', '1f53cd2b1113'],
];

const h = (hex) => Uint8Array.from(Buffer.from(hex, 'hex'));
const xorHex = (a, b) => bytesToHex(h(a).map((x, i) => x ^ h(b)[i]));
// the network's side of a challenge: nonce = base64(RAND ‖ AUTN ‖ server data)
const nonceOf = (rand, autn) => Buffer.concat([Buffer.from(rand, 'hex'), Buffer.from(autn, 'hex'), Buffer.from('srv')]).toString('base64');

SETS.forEach(([k, opc, rand, sqn, amf, f1, f1s, f2, f5, f3, f4, f5s], i) => {
  test(`Milenage: TS 35.208 test set ${i + 1} (f1, f1*, f2, f3, f4, f5, f5*)`, async () => {
    const m = new Milenage(h(k), h(opc));
    const { macA, macS } = await m.f1(h(rand), h(sqn), h(amf));
    assert.equal(bytesToHex(macA), f1, `set ${i + 1}: f1 (MAC-A)`);
    assert.equal(bytesToHex(macS), f1s, `set ${i + 1}: f1* (MAC-S)`);
    const o = await m.f2345(h(rand));
    assert.equal(bytesToHex(o.res), f2, `set ${i + 1}: f2 (RES)`);
    assert.equal(bytesToHex(o.ck), f3, `set ${i + 1}: f3 (CK)`);
    assert.equal(bytesToHex(o.ik), f4, `set ${i + 1}: f4 (IK)`);
    assert.equal(bytesToHex(o.ak), f5, `set ${i + 1}: f5 (AK)`);
    assert.equal(bytesToHex(o.akStar), f5s, `set ${i + 1}: f5* (AK for AUTS)`);
  });
});

test('akaChallenge: the RES of an AUTN with a good MAC-A; a flipped MAC-A bit, a wrong K or a short nonce is refused', async () => {
  const [k, opc, rand, sqn, amf, f1, , f2, f5] = SETS[0];
  const autn = xorHex(sqn, f5) + amf + f1;
  const m = new Milenage(h(k), h(opc));
  const r = await akaChallenge(m, nonceOf(rand, autn));
  assert.equal(bytesToHex(r.res), f2, 'RES for a valid challenge');
  assert.equal(bytesToHex(r.sqn), sqn, 'SQN recovered from SQN⊕AK');
  const bad = autn.slice(0, 31) + ((parseInt(autn[31], 16) ^ 1).toString(16));
  await assert.rejects(akaChallenge(m, nonceOf(rand, bad)), /MAC-A of AUTN does not match/, 'a flipped MAC-A bit must fail the network check');
  await assert.rejects(akaChallenge(new Milenage(h(SETS[1][0]), h(opc)), nonceOf(rand, autn)), /MAC-A/, 'another K must fail the network check');
  await assert.rejects(akaChallenge(m, Buffer.from('short').toString('base64')), /not base64 of RAND and AUTN/, 'a short nonce is no AKA nonce');
  assert.throws(() => hexToBytes('00', 16, 'K'), /K must be 32 hex digits/, 'bad K input is refused with a clear message');
});

test('akaHa1/akaAuthorization: RFC 3310 digest with RES as octets (bytes >= 0x80 not UTF-8-encoded)', () => {
  const res = h('a54211d5e3ba50bf');
  const want = createHash('md5').update(Buffer.concat([Buffer.from('alice@ims.lab:ims.lab:'), Buffer.from(res)])).digest('hex');
  assert.equal(akaHa1('alice@ims.lab', 'ims.lab', res), want, 'HA1 = MD5(IMPI:realm:RES octets)');
  const a = akaAuthorization({ impi: 'alice@ims.lab', realm: 'ims.lab', nonce: 'bm9uY2U=', qop: 'auth,auth-int', uri: 'sip:ims.lab',
    method: 'REGISTER', res, cnonce: 'abc' });
  const ha2 = createHash('md5').update('REGISTER:sip:ims.lab').digest('hex');
  const resp = createHash('md5').update(`${want}:bm9uY2U=:00000001:abc:auth:${ha2}`).digest('hex');
  assert.match(a, new RegExp(`response="${resp}"`), `digest response with qop=auth, got: ${a}`);
  assert.match(a, /algorithm=AKAv1-MD5/, 'the header names AKAv1-MD5');
});

// a JsSIP socket stand-in: records what is sent
function fakeInner() {
  return { sent: [], via_transport: 'WSS', url: 'wss://x', sip_uri: 'sip:x;transport=ws', send(m) { this.sent.push(m); return true; },
    connect() {}, disconnect() {}, isConnected: () => true, isConnecting: () => false };
}

test('AkaSocket: Bearer on every request but CANCEL, none on responses; an AKA challenge answered, its reply named AKAv1-MD5', async () => {
  const [k, opc, rand, sqn, amf, f1, , f2, f5] = SETS[0];
  const inner = fakeInner();
  const got = [];
  const aka = [];
  const sock = new AkaSocket(inner, { impi: 'alice@ims.lab', k: h(k), opc: h(opc), token: () => 'tok.en.x', onAka: (a) => aka.push(a) });
  sock.ondata = (d) => got.push(d);
  sock.send('INVITE sip:ue1@ims.lab SIP/2.0\r\nVia: x\r\n\r\nv=0\r\n');
  sock.send('CANCEL sip:ue1@ims.lab SIP/2.0\r\nVia: x\r\n\r\n');
  sock.send('SIP/2.0 200 OK\r\nVia: x\r\n\r\n');
  assert.match(inner.sent[0], /^INVITE [^\r]*\r\nAuthorization: Bearer tok\.en\.x\r\nVia: x/, `Bearer after the request line: ${inner.sent[0]}`);
  assert.doesNotMatch(inner.sent[1], /Bearer/, 'no token on CANCEL (hop by hop, matched to its INVITE)');
  assert.doesNotMatch(inner.sent[2], /Bearer/, 'no token on a response');

  const nonce = nonceOf(rand, xorHex(sqn, f5) + amf + f1);
  inner.ondata(`SIP/2.0 401 Unauthorized\r\nVia: x\r\nWWW-Authenticate: Digest realm="ims.lab", nonce="${nonce}", algorithm=AKAv1-MD5, qop="auth", ck="00", ik="00"\r\nContent-Length: 0\r\n\r\n`);
  inner.ondata('SIP/2.0 200 OK\r\nVia: y\r\n\r\n');
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(got.length, 2, 'both messages handed on');
  assert.match(got[0], /algorithm=MD5, qop/, 'JsSIP sees an MD5 challenge');
  assert.match(got[1], /Via: y/, 'the order of messages is kept');
  assert.equal(aka.length, 1, 'onAka called once');
  assert.equal(aka[0].realm, 'ims.lab');
  assert.equal(aka[0].ha1, akaHa1('alice@ims.lab', 'ims.lab', h(f2)), 'HA1 from RES');
  sock.send(`REGISTER sip:ims.lab SIP/2.0\r\nAuthorization: Digest algorithm=MD5, username="alice@ims.lab", realm="ims.lab", nonce="${nonce}", response="x"\r\n\r\n`);
  assert.match(inner.sent[3], /Authorization: Digest algorithm=AKAv1-MD5, username/, 'the answer is named AKAv1-MD5 on the wire');
  assert.match(inner.sent[3], /Authorization: Bearer tok\.en\.x/, 'and the REGISTER carries the token too');
  sock.send('REGISTER sip:ims.lab SIP/2.0\r\nAuthorization: Digest algorithm=MD5, nonce="other"\r\n\r\n');
  assert.match(inner.sent[4], /algorithm=MD5, nonce="other"/, 'an MD5 answer to a nonce it did not answer stays MD5');
});

test('AkaSocket: a challenge with a forged AUTN is handed on unchanged (JsSIP refuses it) and onAkaError says why', async () => {
  const [k, opc, rand, sqn, amf, , , , f5] = SETS[0];
  const inner = fakeInner();
  const got = [];
  const errors = [];
  const sock = new AkaSocket(inner, { impi: 'a@ims.lab', k: h(k), opc: h(opc), token: () => 't', onAka: () => assert.fail('onAka for a forged AUTN'),
    onAkaError: (e) => errors.push(e) });
  sock.ondata = (d) => got.push(d);
  const msg = `SIP/2.0 401 Unauthorized\r\nWWW-Authenticate: Digest realm="ims.lab", nonce="${nonceOf(rand, `${xorHex(sqn, f5)}${amf}0000000000000000`)}", algorithm=AKAv1-MD5\r\n\r\n`;
  inner.ondata(msg);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(got[0], msg, 'handed on unchanged');
  assert.match(errors[0] ?? '', /network failed authentication/, `the reason: ${errors[0]}`);
  assert.equal(authParam('realm="r", nonce=abc, qop="auth"', 'nonce'), 'abc', 'unquoted auth-param');
});

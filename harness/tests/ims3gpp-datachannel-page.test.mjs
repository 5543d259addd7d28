// Unit test (no lab needed): the page's bootstrap-channel helpers (webclient/public/bootstrap.js; docs/datachannel.md
// "Bootstrap"): the HTTP response parser the page reads the MF's answers with, and the application data channels a
// downloaded application asks for (what the page then offers: a=dcmap + a=dcsa 3gpp-req-app, TS 24.186).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applicationChannels, parseResponse } from '../../webclient/public/bootstrap.js';

test('parseResponse: an HTTP/1.1 response in one data-channel message, as text or binary', () => {
  const body = '{"applications": []}';
  const raw = `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  const r = parseResponse(raw);
  assert.equal(r.status, 200);
  assert.equal(r.reason, 'OK');
  assert.equal(r.headers['content-type'], 'application/json', 'header names are lower case');
  assert.equal(r.body, body);
  assert.equal(r.bytes, body.length);
  const bin = parseResponse(new TextEncoder().encode('HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\né').buffer);
  assert.equal(bin.status, 404, 'an ArrayBuffer (binary message) is read the same way');
  assert.equal(bin.body, 'é', 'Content-Length counts bytes: é is 2 of them');
});

test('parseResponse: what is no complete HTTP response is refused with a sentence', () => {
  assert.throws(() => parseResponse('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n'), /no end of header/);
  assert.throws(() => parseResponse('hello\r\n\r\n'), /no HTTP response: hello/);
  assert.throws(() => parseResponse('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort'), /5 body bytes, Content-Length says 10/);
});

test('applicationChannels: the channels an application\'s list entry asks for, as the page offers them', () => {
  const app = { id: 'org.lab.chat', channels: [{ streamId: 1000, label: 'chat', app: 'org.lab.chat' }, { streamId: 1002, label: 'files' }] };
  assert.deepEqual(applicationChannels(app), [{ id: 1000, label: 'chat', app: 'org.lab.chat' }, { id: 1002, label: 'files', app: 'org.lab.chat' }],
    'stream id, label, and the application (its own id when the entry names none)');
  assert.throws(() => applicationChannels({ id: 'x', channels: [{ streamId: 100, label: 'b' }] }), /no application data channel/,
    'stream ids below 1000 are the bootstrap range (TS 24.186): an application cannot ask for them');
  assert.throws(() => applicationChannels({ id: 'x', channels: [{ streamId: 1000 }] }), /no application data channel/, 'a channel needs a label');
  assert.throws(() => applicationChannels({ id: 'x', channels: [] }), /asks for no data channel/);
  assert.throws(() => applicationChannels({ id: 'x' }), /asks for no data channel/);
});

// Unit test (no lab needed): the page's real-time-text helpers (webclient/public/rtt.js): what goes out on the T.140
// channel when the input field changes, and how received T.140 text is shown.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CallText, edits, shown } from '../../webclient/public/rtt.js';

test('edits: what was typed goes out as it is, what was erased as T.140 backspaces', () => {
  assert.equal(edits('', 'h'), 'h', 'a key typed is one character out');
  assert.equal(edits('hel', 'hello'), 'lo', 'only what was added');
  assert.equal(edits('hello', 'hell'), '\u0008', 'one backspace (U+0008) for one character erased');
  assert.equal(edits('abc', 'abd'), '\u0008d', 'a change at the end: erase back to the common prefix, then the new text');
  assert.equal(edits('a', 'a\nb'), '\u2028b', 'a line break goes out as U+2028 (T.140 line separator)');
  assert.equal(edits('x😀', 'x'), '\u0008', 'an emoji (two UTF-16 units) is one character to erase');
  assert.equal(edits('same', 'same'), '', 'no change, nothing out');
  assert.equal(edits('x', 'x\uD83D'), '', 'the first half of an emoji alone waits (Firefox reports it in its own input event)');
  assert.equal(edits('x', 'x😀'), '😀', 'the emoji goes out whole once its second half is in');
});

test('shown: T.140 control characters applied, the loss marker kept', () => {
  assert.equal(shown('helo\u0008lo'), 'hello', 'backspace erases the previous character');
  assert.equal(shown('a\u2028b\r\nc'), 'a\nb\nc', 'U+2028 and CR LF are new lines');
  assert.equal(shown('\uFEFFhi'), 'hi', 'U+FEFF (keep-alive) shows nothing');
  assert.equal(shown('wo\uFFFDd'), 'wo\uFFFDd', 'U+FFFD (text lost on the way, RFC 4103 §5) is shown');
  assert.equal(shown('😀\u0008'), '', 'backspace erases a whole emoji');
});

test('CallText sends a message per character and keeps what came in', () => {
  const out = [];
  const ch = { readyState: 'open', send: (m) => out.push(m), onmessage: null };
  const t = new CallText(ch);
  const events = [];
  t.addEventListener('text', (e) => events.push(e.detail));
  assert.equal(t.type('hé😀'), true);
  assert.deepEqual(out, ['h', 'é', '😀'], 'one message per character (code point), sent at once');
  ch.onmessage({ data: 'ok' });
  ch.onmessage({ data: '\u0008!' });
  assert.deepEqual(t.summary(), { state: 'open', sent: 'hé😀', received: 'ok\u0008!', shownReceived: 'o!', messagesSent: 3, messagesReceived: 2 });
  assert.deepEqual(events.map((e) => e.dir), ['out', 'in', 'in']);
  ch.readyState = 'connecting';
  assert.equal(t.type('x'), false, 'nothing goes out on a channel that is not open');
  assert.equal(out.length, 3);
});

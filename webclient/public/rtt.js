// Real-time text on the page (issue #25, docs/datachannel.md "The page"): T.140 (ITU-T T.140) on a WebRTC data
// channel with the subprotocol "t140" (RFC 8865). The gateway's data-channel endpoint bridges the channel to RFC 4103
// RTP text (m=text, t140 + red) toward the IMS side, so each character typed here reaches the IMS UE as it is typed,
// and the UE's characters arrive here one by one. The channel is SDP-negotiated like the chat channel
// (data-channels.js writes its a=dcmap line, `subprotocol="t140"`); this module only sends and shows the text.
//
// T.140 in brief: UTF-8 text; U+0008 (BACKSPACE) erases the previous character; U+2028 (LINE SEPARATOR) or CR LF
// starts a new line; U+FEFF (ZERO WIDTH NO-BREAK SPACE) is a keep-alive and shows nothing; U+FFFD marks text lost
// on the way (RFC 4103 §5, the gateway puts it where redundancy could not recover a packet) and is shown.

// The page's T.140 channel on a call it makes: negotiated, reliable and ordered (RFC 8865 §4.1).
export const T140_CHANNEL = { id: 1001, label: 't140', protocol: 't140' };

const BS = '\u0008';

// The text as shown: T.140's control characters applied.
export function shown(raw) {
  const out = [];
  for (const ch of raw.replace(/\r\n/g, '\n')) {
    if (ch === BS) out.pop();
    else if (ch === '\uFEFF') continue;
    else out.push(ch === '\u2028' ? '\n' : ch);
  }
  return out.join('');
}

// The field's value without a trailing lone high surrogate: some browsers (Firefox) report an emoji typed as two
// input events, its first UTF-16 half alone first; that half waits for the second instead of going out as U+FFFD.
export function settled(value) {
  return /[\uD800-\uDBFF]$/.test(value) ? value.slice(0, -1) : value;
}

// What to send on the channel when an input field's value changes from `before` to `after`: backspaces for what
// was removed after the common prefix, then what was added (T.140 can only erase at the end of the text).
export function edits(before, after) {
  after = settled(after);
  const a = [...before];
  const b = [...after];
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return BS.repeat(a.length - i) + b.slice(i).join('').replace(/\r?\n/g, '\u2028');
}

// One call's real-time text on its T.140 data channel. Events: `text` {dir: 'in'|'out', text} for each message.
export class CallText extends EventTarget {
  sent = '';          // every character sent, as sent
  received = '';      // every character received, as received
  messagesSent = 0;
  messagesReceived = 0;

  constructor(ch) {
    super();
    this.ch = ch;
    ch.onmessage = (e) => {
      const text = typeof e.data === 'string' ? e.data : new TextDecoder().decode(e.data);
      this.received += text;
      this.messagesReceived++;
      this.dispatchEvent(new CustomEvent('text', { detail: { dir: 'in', text } }));
    };
  }

  get open() { return this.ch.readyState === 'open'; }

  // Sends text now, one message per character (each keystroke goes out as it is typed); false when not open.
  type(text) {
    if (!this.open) return false;
    for (const ch of String(text)) {
      this.ch.send(ch);
      this.sent += ch;
      this.messagesSent++;
    }
    this.dispatchEvent(new CustomEvent('text', { detail: { dir: 'out', text: String(text) } }));
    return true;
  }

  summary() {
    return { state: this.ch.readyState, sent: this.sent, received: this.received, shownReceived: shown(this.received),
      messagesSent: this.messagesSent, messagesReceived: this.messagesReceived };
  }
}

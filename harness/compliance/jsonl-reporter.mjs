// A node:test reporter (--test-reporter=<this file>): one JSON line per finished test with its file,
// name, outcome, duration and first error line. `./lab compliance` maps these onto checks.mjs;
// node's junit reporter names no file and double-escapes quotes, so it cannot be matched exactly.
export default async function* jsonlReporter(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, name, nesting, skip, todo, details } = event.data;
    const error = event.type === 'test:fail' ? errorText(details?.error) : null;
    yield `${JSON.stringify({ file, name, nesting, passed: event.type === 'test:pass', skipped: Boolean(skip || todo), duration_ms: details?.duration_ms ?? null, error })}\n`;
  }
}

// The assertion's own message when there is one (node wraps it in ERR_TEST_FAILURE), first lines only.
function errorText(err) {
  const e = err?.cause ?? err;
  const text = String(e?.message ?? e ?? 'failed');
  return text.split('\n').slice(0, 6).join('\n').trim();
}

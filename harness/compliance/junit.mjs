// junit.xml of `./lab compliance`, beside report.json, for a CI (the lab's own, or the user's against their core):
// one <testcase> per check of the catalogue, classname "compliance.<core>", name the check id; a failed check is a
// <failure> with its error (which test and why), a not-applicable one <skipped> with its reason. Per check rather
// than per test (node's own --test-reporter=junit): a check is the verdict, and its not-applicable reason is no test.
const xml = (s) => String(s ?? '')
  // XML 1.0 has no place for other control characters, even escaped
  .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
  .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' }[c]));

export function renderJunit(report) {
  const n = (s) => report.checks.filter((c) => c.status === s).length;
  const cases = report.checks.map((c) => {
    const head = `    <testcase classname="compliance.${xml(report.ims)}" name="${xml(c.id)}" time="${((c.duration_ms ?? 0) / 1000).toFixed(3)}"`;
    const props = `      <system-out>${xml(`${c.clause}: ${c.requirement}`)}</system-out>\n`;
    if (c.status === 'fail') return `${head}>\n      <failure message="${xml(c.error)}" type="check-failed">${xml(c.error)}</failure>\n${props}    </testcase>`;
    if (c.status === 'not-applicable') return `${head}>\n      <skipped message="${xml(c.reason)}"/>\n${props}    </testcase>`;
    return `${head}>\n${props}    </testcase>`;
  });
  const time = (report.checks.reduce((t, c) => t + (c.duration_ms ?? 0), 0) / 1000).toFixed(3);
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="lab compliance" tests="${report.checks.length}" failures="${n('fail')}" skipped="${n('not-applicable')}" time="${time}">
  <testsuite name="lab compliance --ims ${xml(report.ims)}" timestamp="${xml(report.started)}" tests="${report.checks.length}" failures="${n('fail')}" errors="0" skipped="${n('not-applicable')}" time="${time}">
${cases.join('\n')}
  </testsuite>
</testsuites>
`;
}

// report.html of `./lab compliance`: the matrix as last run (clause, requirement, status, evidence).
import { esc, htmlHead } from '../kit/report.mjs';

const STATUS_CLASS = { pass: 'ok', fail: 'bad', 'not-applicable': '' };

export function renderComplianceHtml(report) {
  const rows = report.checks.map((c) => {
    const evidence = c.status === 'not-applicable'
      ? esc(c.reason)
      : c.evidence.map((e) => `${esc(e.file)}: “${esc(e.test)}” <b>${esc(e.status)}</b>`).join('<br>');
    const error = c.error ? `<br><span class="bad">${esc(c.error)}</span>` : '';
    return `<tr><td>${esc(c.id)}</td><td>${esc(c.clause)}</td><td>${esc(c.requirement)}</td>`
      + `<td class="${STATUS_CLASS[c.status] ?? 'bad'}">${esc(c.status)}</td><td>${evidence}${error}</td><td>${esc(c.duration_ms)}</td></tr>`;
  });
  return `${htmlHead(`${report.tool} report`, { chart: false })}
<h1>${esc(report.tool)}: <span class="${report.ok ? 'ok' : 'bad'}">${report.ok ? 'OK' : 'FAILED'}</span></h1>
<p>started ${esc(report.started)} · ${esc(report.summary)} · each check passes only when every test it names ran and passed (docs/compliance.md)</p>
<table><thead><tr><th>check</th><th>clause</th><th>requirement</th><th>status</th><th>evidence (harness/tests)</th><th>ms</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table>
</body></html>
`;
}

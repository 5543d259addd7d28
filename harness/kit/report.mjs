// Report writing shared by ./lab demo, bench and compliance: report.json (pretty JSON) next to a
// self-contained report.html (shared head and styles, Chart.js inlined from the page's vendor copy).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const CHART_JS = [
  path.join(here, '..', '..', 'webclient', 'public', 'vendor', 'chart.umd.min.js'),
  path.join(here, '..', 'node_modules', 'chart.js', 'dist', 'chart.umd.min.js'),
];

// writeReport(dir, report, renderHtml) -> {jsonFile, htmlFile}: DIR/report.json and DIR/report.html.
export function writeReport(dir, report, renderHtml) {
  fs.mkdirSync(dir, { recursive: true });
  const jsonFile = path.join(dir, 'report.json');
  const htmlFile = path.join(dir, 'report.html');
  fs.writeFileSync(jsonFile, `${JSON.stringify(report, null, 2)}\n`);
  fs.writeFileSync(htmlFile, renderHtml(report));
  return { jsonFile, htmlFile };
}

export const esc = (s) => String(s ?? '').replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
// text that goes inside <script>: never let it close the element
export const scriptSafe = (s) => s.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');

// The head every self-contained lab report shares: styles and (unless chart: false) the inlined Chart.js.
export function htmlHead(title, { chart = true } = {}) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:1000px;margin:1rem auto;color:#222}
table{border-collapse:collapse;width:100%;font-size:.9rem}th,td{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left}
.ok{color:#1e8449;font-weight:600}.bad{color:#c0392b;font-weight:600}.box{position:relative;height:320px}
</style>
${chart ? `<script>${scriptSafe(chartJsSource())}</script>` : ''}
</head><body>`;
}

export function chartJsSource() {
  const file = CHART_JS.find((f) => fs.existsSync(f));
  if (!file) throw new Error('chart.js not vendored: run harness/lib/vendor.sh');
  return fs.readFileSync(file, 'utf8');
}

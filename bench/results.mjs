// The bench's rows, goals and reports: one row per figure, each beside the baseline measured in the
// same run, with its goal and whether it is met. bench/run.mjs measures; this file only keeps and
// prints. A new benchmark adds a goal to GOALS and calls record() with its id.
import { cpus, loadavg, platform, release } from 'node:os';
import { readFileSync, writeFileSync } from 'node:fs';

/**
 * The goals of issue 15, by id. `ok(row)` says whether a row meets it: most are ratios to the
 * same-run baseline, some absolute figures. A row without a goal is shown for context only.
 */
export const GOALS = {
  help: { text: '≤ 1.3× node -e 0', ok: (r) => r.ratio <= 1.3 },
  read: { text: '≤ 1.3× the http.get', ok: (r) => r.ratio <= 1.3 },
  batch: { text: '≤ 1.3× one 500-id call', ok: (r) => r.ratio <= 1.3 },
  lockerTime: { text: '≤ 1.5 s', ok: (r) => r.value <= 1500 },
  lockerMemory: { text: '< 150 MB', ok: (r) => r.value < 150 },
  lockerTable: { text: '≤ 1.2× NDJSON', ok: (r) => r.ratio <= 1.2 },
  bulkRate: { text: '≥ 1,500 edits/s', ok: (r) => r.value >= 1500 },
  bulkVsSeparate: { text: '≥ 100× separate invocations', ok: (r) => r.ratio >= 100 },
  bulkCpu: { text: '≤ 0.3 ms', ok: (r) => r.value <= 0.3 },
  rateTime: { text: '≤ 1.15× the ideal', ok: (r) => r.ratio <= 1.15 },
  rate429: { text: '< 5 % answered 429', ok: (r) => r.value < 5 },
  xmlCpu: { text: '≤ 3× NDJSON (CPU)', ok: (r) => r.ratio <= 3 },
};

export function fmt(x) {
  if (!Number.isFinite(x)) return String(x);
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}

/** Rows of one environment (a table of the report). */
export class Table {
  constructor(title, note) {
    this.title = title;
    this.note = note;
    /** @type {{name: string, value: number, unit: string, baselineName?: string, baseline?: number, ratio?: number, goal?: string, pass?: boolean, note?: string}[]} */
    this.rows = [];
  }

  /**
   * One figure. `baseline` is { name, value } measured in the same run (omitted for an absolute
   * figure); `goal` an id of GOALS, or undefined for a row shown for context.
   */
  record({ name, value, unit, baseline, goal, note }) {
    const ratio = baseline ? value / baseline.value : undefined;
    const row = { name, value, unit, baselineName: baseline?.name, baseline: baseline?.value, ratio, note };
    if (goal) {
      const g = GOALS[goal];
      if (!g) throw new Error(`bench: no goal '${goal}'`);
      row.goal = g.text;
      row.pass = g.ok(row);
    }
    this.rows.push(row);
    const vs = baseline ? ` vs ${baseline.name} ${fmt(baseline.value)} ${unit} -> ${fmt(ratio)}x` : '';
    const verdict = row.goal ? ` (goal ${row.goal}: ${row.pass ? 'pass' : 'FAIL'})` : '';
    process.stderr.write(`bench: ${name}: ${fmt(value)} ${unit}${vs}${verdict}\n`);
    return row;
  }

  /** A benchmark that could not run: its goals are not met, and the report says why. */
  failed(name, goals, error) {
    const why = String(error?.message ?? error).split('\n').find((l) => l.trim()) ?? 'failed';
    // (goals it met or missed before it failed keep their rows)
    const left = goals.filter((g) => !this.rows.some((r) => r.goal === GOALS[g].text));
    for (const goal of left.length ? left : [undefined]) {
      const row = { name, value: NaN, unit: '', note: `did not run: ${why}` };
      if (goal) Object.assign(row, { goal: GOALS[goal].text, pass: false });
      this.rows.push(row);
    }
    process.stderr.write(`bench: ${name}: did not run: ${why}\n`);
  }

  markdown() {
    const head = ['benchmark', 'figure', 'baseline (same run)', 'ratio', 'goal', 'met'];
    const notes = [];
    const body = this.rows.map((r) => [
      r.name + (r.note ? ` [${notes.push(r.note)}]` : ''),
      Number.isNaN(r.value) ? '—' : `${fmt(r.value)} ${r.unit}`,
      r.baselineName ? `${r.baselineName}: ${fmt(r.baseline)} ${r.unit}` : '',
      r.ratio !== undefined ? `${r.ratio.toFixed(2)}×` : '',
      r.goal ?? '',
      r.goal ? (r.pass ? 'pass' : '**FAIL**') : '',
    ]);
    const rows = [head, ...body];
    const widths = head.map((_, i) => Math.max(...rows.map((r) => r[i].length)));
    const line = (r) => '| ' + r.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
    const table = [line(head), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...body.map(line)];
    return [...table, ...(notes.length ? ['', ...notes.map((n, i) => `- [${i + 1}] ${n}`)] : [])].join('\n');
  }

  summary() {
    const goals = this.rows.filter((r) => r.goal);
    const failed = goals.filter((r) => !r.pass);
    return `${goals.length - failed.length} of ${goals.length} goals met` + (failed.length ? `; not met: ${failed.map((r) => r.name).join('; ')}` : '');
  }
}

/** Where and when: what makes figures comparable (or not). */
export function machine(loadBefore) {
  const c = cpus();
  return {
    cores: c.length,
    cpu: (c[0]?.model ?? 'unknown CPU').replace(/\s+/g, ' ').trim(),
    node: process.version,
    os: `${platform()} ${release()}`,
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    load: `${loadBefore.map((x) => x.toFixed(2)).join(', ')} at the start, ${loadavg().map((x) => x.toFixed(2)).join(', ')} at the end`,
    busy: Math.max(loadBefore[0], loadavg()[0]) > c.length,
  };
}

/** The report: both tables, and where they were measured. */
export function report(tables, m) {
  const parts = [
    `Measured by \`npm run bench\` on ${m.date}: ${m.cores} cores (${m.cpu}), Node ${m.node}, ${m.os}.`,
    `Load average (1, 5, 15 min): ${m.load}.`,
    '',
    'Each figure is beside its baseline measured in the same run (start-up and read: medians of runs',
    'alternated with the baseline), so ratios hold on a busy machine better than figures do.',
  ];
  if (m.busy) {
    parts.push(
      '',
      `**The machine was busy (a load average above its ${m.cores} cores): other processes took turns with`,
      "every run, the longer runs more often, so ratios as well as figures are off. Re-run on a quiet machine.**",
    );
  }
  for (const t of tables) {
    parts.push('', `### ${t.title}`, '');
    if (t.note) parts.push(t.note, '');
    parts.push(t.markdown(), '', `${t.summary()}.`);
  }
  return parts.join('\n') + '\n';
}

export const README_START = '<!-- bench/RESULTS.md: written by npm run bench -->';
export const README_END = '<!-- end of bench/RESULTS.md -->';

/** bench/RESULTS.md, and the README's quote of it (between the two markers of its Benchmarks section). */
export function writeResults(resultsFile, readmeFile, text) {
  writeFileSync(resultsFile, `# Benchmark results\n\n${text}`);
  let readme;
  try {
    readme = readFileSync(readmeFile, 'utf8');
  } catch {
    return false;
  }
  const a = readme.indexOf(README_START);
  const b = readme.indexOf(README_END);
  if (a < 0 || b < a) return false;
  writeFileSync(readmeFile, readme.slice(0, a + README_START.length) + '\n' + text + readme.slice(b));
  return true;
}

export { loadavg };

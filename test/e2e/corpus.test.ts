// The bad-input corpus (test/corpus/cases/*.json): every case must give one clear error line on
// stderr (plus at most a hint, or one line per bad input line for edit files), the documented
// exit code, nothing on stdout, no stack trace, no request sent, no file or config changed.
// The README's "Exit codes and errors" examples are checked against the same cases, line by line.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { uncalledServer } from '../helpers/uncalled-server';
import { mcat, repoRoot } from '../helpers/mcat';

type FileSpec = string | { hex: string } | { sequence: number };
interface Case {
  args: string[];
  exit: number;
  stderr?: string;
  stderrMatch?: string;
  /** at most this many lines on stderr (a binary file said once, not a line of it per line of data) */
  maxStderrLines?: number;
  stdin?: string;
  stdinHex?: string;
  files?: Record<string, FileSpec>;
  conf?: string | { mode: number; text: string };
  skipAsRoot?: boolean;
}

const dir = path.join(repoRoot, 'test/corpus/cases');
const cases = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => ({ name: f.replace(/\.json$/, ''), c: JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as Case }));

function fileBytes(spec: FileSpec): Buffer {
  if (typeof spec === 'string') return Buffer.from(spec, 'utf8');
  if ('hex' in spec) return Buffer.from(spec.hex, 'hex');
  return Buffer.from(Array.from({ length: spec.sequence }, (_, i) => String(1000000 + i)).join('\n') + '\n');
}

/** name → sha256 of every file under a directory (to prove nothing was written or changed). */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = path.join(d, n);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else {
        let h = `mode ${st.mode.toString(8)}`;
        try {
          h += ' ' + createHash('sha256').update(readFileSync(p)).digest('hex');
        } catch {
          h += ' unreadable';
        }
        out[path.relative(root, p)] = h;
      }
    }
  };
  walk(root);
  return out;
}

// any request reaching it breaks "nothing sent"
const api = uncalledServer();

export async function runCase(c: Case) {
  const work = mkdtempSync(path.join(tmpdir(), 'mcat-corpus-'));
  const home = path.join(work, 'home');
  const cwd = path.join(work, 'cwd');
  const confDir = path.join(home, '.config/mcat');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(confDir, { recursive: true });
  for (const [name, spec] of Object.entries(c.files ?? {})) writeFileSync(path.join(cwd, name), fileBytes(spec));
  if (c.conf !== undefined) {
    const conf = typeof c.conf === 'string' ? { mode: 0o600, text: c.conf } : c.conf;
    const f = path.join(confDir, 'config.json');
    writeFileSync(f, conf.text);
    chmodSync(f, conf.mode);
  }
  const before = snapshot(work);
  const sent = api.requests;
  const r = await mcat(c.args, {
    home,
    cwd,
    input: c.stdinHex !== undefined ? Buffer.from(c.stdinHex, 'hex') : c.stdin ?? '',
    sandboxDir: path.join(work, 'no-sandbox-here'),
    env: {
      MCAT_BASE_URL: api.baseUrl,
      MCAT_CONSUMER_KEY: 'corpus-key',
      MCAT_CONSUMER_SECRET: 'corpus-secret',
      MCAT_TOKEN: 'corpus-token',
      MCAT_TOKEN_SECRET: 'corpus-token-secret',
      MCAT_COUNTRY: 'GB',
    },
    timeout: 20_000,
  });
  return { r, sent: api.requests - sent, changed: JSON.stringify(snapshot(work)) !== JSON.stringify(before), before, after: snapshot(work) };
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

describe('bad-input corpus', () => {
  it('has cases', () => expect(cases.length).toBeGreaterThanOrEqual(40));

  for (const { name, c } of cases) {
    it.skipIf(c.skipAsRoot && isRoot)(`${name}: mcat ${c.args.join(' ')}`, async () => {
      const { r, sent, before, after } = await runCase(c);
      const lines = r.stderr.split('\n').filter((l) => l !== '');
      expect({ exit: r.exitCode, stdout: r.stdout, first: lines[0] }).toMatchObject({ exit: c.exit, stdout: '' });
      if (c.stderr !== undefined) expect(lines[0]).toBe(c.stderr);
      if (c.stderrMatch !== undefined) expect(lines[0]).toMatch(new RegExp(c.stderrMatch));
      if (c.maxStderrLines !== undefined) expect(lines.length, r.stderr).toBeLessThanOrEqual(c.maxStderrLines);
      for (const l of lines) {
        expect(l, 'every stderr line is a message, a hint or a located input problem').toMatch(/^(mcat: |hint: |\S+:\d+: )/);
        expect(l).not.toMatch(/^\s+at /);
      }
      expect(lines.filter((l) => l.startsWith('hint: ')).length).toBeLessThanOrEqual(1);
      expect(sent, 'no request may be sent').toBe(0);
      expect(after, 'no file may be written or changed').toEqual(before);
    });
  }
});

describe('README "Exit codes and errors"', () => {
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((s) => s.startsWith('Exit codes and errors')) ?? '';
  // rows: | `mcat <args>` | <exit> | `mcat: <line>` |
  const rows = [...section.matchAll(/^\|\s*`mcat ([^`]+)`\s*\|\s*(\d+)\s*\|\s*`([^`]+)`\s*\|/gm)].map((m) => ({
    cmd: m[1],
    exit: Number(m[2]),
    line: m[3],
  }));

  it('has the section, with example rows', () => {
    expect(section).not.toBe('');
    expect(rows.length).toBeGreaterThanOrEqual(8);
  });

  for (const row of rows) {
    it(`mcat ${row.cmd}`, () => {
      const match = cases.find(({ c }) => c.args.join(' ') === row.cmd && c.stderr === row.line);
      expect(match, `no corpus case runs 'mcat ${row.cmd}' and pins the line '${row.line}'`).toBeDefined();
      expect(match!.c.exit).toBe(row.exit);
      expect(match!.c.stderr, `corpus case ${match!.name} must pin the exact line`).toBe(row.line);
    });
  }
});

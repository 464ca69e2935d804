// The README's sample output blocks of the demo data stay true: each `$ mcat …` block of the
// sections below is run as written against a freshly seeded sandbox, at the width and time zone
// the text states (80 columns, TZ=UTC), and must print what the block shows: its stdout lines as
// shown, its `mcat:`/`hint:` lines on stderr (the sandbox's port aside), and its `exit N`.
// The error lines the text quotes are run too. (The jq recipes: scripting.test.ts; the bad-input
// table: corpus.test.ts.)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/mcat';
import { mcatIn as mcat } from '../helpers/mcat-in';
import { sandboxForFile } from '../helpers/file-sandbox';

const box = sandboxForFile(mcat);

interface Sample {
  /** the command line after `$ ` */
  line: string;
  stdout: string[];
  stderr: string[];
  exit: number;
}

/** The `$ mcat …` samples of the README's code blocks: lines up to the next `$ ` or the block's end. */
function samples(readme: string): Sample[] {
  const out: Sample[] = [];
  for (const block of readme.matchAll(/^```\n([\s\S]*?)^```$/gm)) {
    let cur: Sample | undefined;
    for (const l of block[1].split('\n')) {
      const cmd = /^\$ (mcat .*)$/.exec(l);
      if (cmd) {
        cur = { line: cmd[1], stdout: [], stderr: [], exit: 0 };
        out.push(cur);
      } else if (!cur || l === '') continue;
      else if (/^exit \d+$/.test(l)) cur.exit = Number(l.slice(5));
      else if (/^(mcat|hint): /.test(l)) cur.stderr.push(l);
      else cur.stdout.push(l);
    }
  }
  return out;
}

/** Words of a sample's command: mcat's arguments, and whether it echoes its exit code. */
function argsOf(line: string): string[] {
  const words = line.replace(/; echo "exit \$\?"$/, '').split(' ');
  expect(words[0]).toBe('mcat');
  expect(words.slice(1).join(' '), 'a sample is plain words (no quotes, pipes or variables)').toMatch(/^[\w .:-]*$/);
  return words.slice(1);
}

const port = (s: string) => s.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT');

describe('README sample output of the demo data', () => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const all = samples(readme);

  it('has the samples: the locker table, its summary and a check', () => {
    expect(all.map((s) => s.line)).toEqual(expect.arrayContaining(['mcat locker', 'mcat locker summary', 'mcat locker check 10365701; echo "exit $?"']));
  });

  for (const s of all) {
    it(`$ ${s.line}`, async () => {
      // a table as on the terminal the text describes (-o table: the run's stdout here is a buffer)
      const r = await box.run([...argsOf(s.line), '-o', 'table'], { env: { COLUMNS: '80', TZ: 'UTC' } });
      expect(r.stdout.replace(/\n$/, '').split('\n')).toEqual(s.stdout);
      expect(port(r.stderr).replace(/\n$/, '').split('\n')).toEqual(s.stderr.map(port));
      expect(r.exitCode).toBe(s.exit);
    });
  }
});

describe('README error lines quoted in its text', () => {
  // the text as one line: a quoted line may wrap in the source
  const text = readFileSync(join(repoRoot, 'README.md'), 'utf8').replace(/\s*\n\s*/g, ' ');
  const cases: { args: string[]; env?: Record<string, string>; exit: number; line: string }[] = [
    { args: ['release', 'tracks', '100018'], exit: 1, line: 'mcat: release 100018 is not available to this partner: it does not exist, or its label is not licensed for this consumer key (2001, HTTP 404)' },
    { args: ['release', 'batch', '100001'], env: { MCAT_CONSUMER_KEY: 'from-the-sandbox', MCAT_CONSUMER_SECRET: 'wrong' }, exit: 4, line: 'mcat: authentication failed: invalid signature (HTTP 401)' },
    { args: ['--country', 'IT', 'release', 'batch', '100001'], exit: 4, line: 'mcat: Resource not available in current context: … (2002, HTTP 403)' },
    { args: ['playlist', 'list', '--user', '10002'], exit: 4, line: "mcat: the token in use (from the sandbox) is user 10001's, not user 10002's: the credentials are fine, the data is another user's (HTTP 401)" },
  ];
  for (const c of cases) {
    it(`mcat ${c.args.join(' ')}: ${c.line.slice(0, 60)}…`, async () => {
      expect(text, 'the README quotes the line').toContain('`' + c.line + '`');
      const env = { ...c.env };
      if (env.MCAT_CONSUMER_KEY === 'from-the-sandbox') env.MCAT_CONSUMER_KEY = box.sb.info.consumers[0].key;
      const r = await box.run(c.args, { env: { ...env, MCAT_QUIET: '1' } });
      const shown = new RegExp('^' + c.line.split('…').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.+') + '$');
      expect(r.stderr.split('\n')[0]).toMatch(shown);
      expect(r.exitCode).toBe(c.exit);
      expect(r.stdout).toBe('');
    });
  }
});

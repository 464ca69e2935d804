// Cells of the command × output-format matrix that the other output tests leave out, found by
// auditing every data command in every format a script author would use: --quiet on a command
// whose summary line is its own (locker find), and --json FIELDS on the commands whose --fields
// pick from a document of their own (profile list, locker stream-check), and -o xml of a batch
// whose document mcat cannot read back (whole document or nothing).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { sandboxProfileEnv } from '../helpers/sandbox';
import { sandboxForFile } from '../helpers/file-sandbox';
import { mcatIn as mcat } from '../helpers/mcat-in';
import { mcat as mcatBin } from '../helpers/mcat';
import { hostileEnv, hostilePerTest, json } from '../helpers/hostile-server';
import { uncalledServer } from '../helpers/uncalled-server';

const box = sandboxForFile(mcat);
const uncalled = uncalledServer();
let home: string;
const run = (args: string[], env: Record<string, string> = {}) =>
  mcat(args, { home, env: { ...sandboxProfileEnv(box.sb), ...env } });

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mcat-matrix-home-'));
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

describe('locker find under --quiet', () => {
  // its "N releases match" and "nothing matches" lines are summaries: -q promised an empty
  // stderr, and they were written past it
  for (const [text, what] of [['summer', 'matches'], ['no such text anywhere', 'nothing matches']] as const) {
    for (const format of ['json', 'ndjson', 'csv', 'tsv']) {
      it(`${what}, -o ${format}: the data on stdout, nothing on stderr (also MCAT_QUIET=1)`, async () => {
        const loud = await run(['locker', 'find', text, '-o', format]);
        expect(loud.exitCode, loud.stderr).toBe(0);
        expect(loud.stderr).toMatch(/^mcat: .*"/);
        const quiet = await run(['locker', 'find', text, '-o', format, '--quiet']);
        expect(quiet.exitCode, quiet.stderr).toBe(0);
        expect(quiet.stderr).toBe('');
        expect(quiet.stdout).toBe(loud.stdout);
        const env = await run(['locker', 'find', text, '-o', format], { MCAT_QUIET: '1' });
        expect(env.stderr).toBe('');
      });
    }
  }

  it('-o xml is refused naming every format it does print (tsv included)', async () => {
    const r = await run(['locker', 'find', 'summer', '-o', 'xml']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toMatch(/table, json, ndjson, csv or tsv/);
  });
});

describe('--json FIELDS where --fields picks from a document of its own', () => {
  // README: "--json FIELDS is -o json --fields FIELDS"; these two took --fields and refused --json
  // FIELDS (exit 2, "lists no items to pick fields of")
  it('profile list: --json name,current is -o json --fields name,current', async () => {
    const fields = await run(['profile', 'list', '-o', 'json', '--fields', 'name,current']);
    expect(fields.exitCode, fields.stderr).toBe(0);
    expect(JSON.parse(fields.stdout)).toEqual([{ name: 'sandbox', current: true }]);
    const viaJson = await run(['profile', 'list', '--json', 'name,current']);
    expect(viaJson.exitCode, viaJson.stderr).toBe(0);
    expect(viaJson.stdout).toBe(fields.stdout);
  });

  it('locker stream-check: --json trackId,streamable is -o json --fields trackId,streamable', async () => {
    const track = '10000101';
    const fields = await run(['locker', 'stream-check', track, '-o', 'json', '--fields', 'trackId,streamable']);
    expect(fields.exitCode, fields.stderr).toBe(0);
    expect(JSON.parse(fields.stdout)).toEqual([{ trackId: Number(track), streamable: true }]);
    const viaJson = await run(['locker', 'stream-check', track, '--json', 'trackId,streamable']);
    expect(viaJson.exitCode, viaJson.stderr).toBe(0);
    expect(viaJson.stdout).toBe(fields.stdout);
  });

  it('profile list -o tsv: the columns of -o csv, tab-separated (it printed tsv only with --fields, else exit 2)', async () => {
    const csv = await run(['profile', 'list', '-o', 'csv']);
    expect(csv.exitCode, csv.stderr).toBe(0);
    const tsv = await run(['profile', 'list', '-o', 'tsv']);
    expect(tsv.exitCode, tsv.stderr).toBe(0);
    expect(tsv.stdout).toBe(csv.stdout.replace(/\r\n/g, '\n').replace(/,/g, '\t'));
    const picked = await run(['profile', 'list', '-o', 'tsv', '--fields', 'name,current,builtIn,baseUrl,consumerKey,country,token']);
    expect(picked.stdout).toBe(tsv.stdout);
  });

  it('locker stream-check -o table --fields: the picked columns, and a path it lacks is exit 2 as in json (the table ignored --fields: its sentence, exit 0)', async () => {
    const picked = await run(['locker', 'stream-check', '10000101', '-o', 'table', '--fields', 'trackId,streamable']);
    expect(picked.exitCode, picked.stderr).toBe(0);
    expect(picked.stdout.split('\n').map((l) => l.trim().split(/\s+/))).toEqual(expect.arrayContaining([['trackId', 'streamable'], ['10000101', 'true']]));
    const bad = await run(['locker', 'stream-check', '10000101', '-o', 'table', '--fields', 'nosuch']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/^mcat: --fields: 'nosuch' matches nothing/m);
    const plain = await run(['locker', 'stream-check', '10000101', '-o', 'table']);
    expect(plain.stdout).toMatch(/^Track +10000101\n/);
    expect(plain.stdout).toMatch(/^Stream +yes \(/m);
  });

  it('a path neither has: exit 2 listing the fields there are, nothing on stdout', async () => {
    const r = await run(['profile', 'list', '--json', 'nosuchfield']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/nosuchfield/);
  });
});

describe('-o xml of a release batch that mcat cannot read back', () => {
  const hostile = hostilePerTest();
  // a service that answers JSON all the same, a release with a field nested 150 levels: the XML
  // rendered from it is well-formed, but deeper than mcat's XML reader goes (100 levels). The batch
  // printed the whole document, then failed reading it for its errors (exit 1 on a full stdout).
  it('exit 1 with nothing on stdout: one whole document or nothing', async () => {
    const s = await hostile();
    let deep: unknown = 'x';
    for (let i = 0; i < 150; i++) deep = { d: deep };
    s.on('/1.2/release/details/batch', json({ status: 'ok', version: '1.2', items: { releases: [{ id: 100001, title: 'Little Shadow', extra: deep }], errors: [] } }));
    const whole = await mcatBin(['release', 'batch', '100001', '-o', 'json'], { env: hostileEnv(s), timeout: 20_000 });
    expect(whole.exitCode, whole.stderr).toBe(0);
    const r = await mcatBin(['release', 'batch', '100001', '-o', 'xml'], { env: hostileEnv(s), timeout: 20_000 });
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toMatch(/^mcat: /);
  });
});

describe('-o a format the command has no form of', () => {
  // `mcat api` printed its JSON body for -o csv, tsv, ndjson and xml; version and completion their
  // text: a script asking for CSV or XML got something else, exit 0
  it('mcat api: csv, tsv, ndjson and xml refused before any request (exit 2, stdout empty); json and table print the body', async () => {
    for (const f of ['csv', 'tsv', 'ndjson', 'xml']) {
      const r = await run(['api', 'GET', '/1.2/release/details/batch', '-f', 'releaseIds=100001', '-f', 'usageTypes=download', '-o', f]);
      expect(r.exitCode, `${f}: ${r.stderr}`).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')[0]).toBe(`mcat: mcat api prints the body as received, not ${f}`);
    }
    expect((await run(['api', 'GET', '/1.2/release/details/batch', '-f', 'releaseIds=100001', '-f', 'usageTypes=download', '-o', 'xml'])).stderr).toMatch(/^hint: ask for XML with --xml$/m);
    for (const f of ['json', 'table']) {
      const r = await run(['api', 'GET', '/1.2/release/details/batch', '-f', 'releaseIds=100001', '-f', 'usageTypes=download', '-o', f]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).items.releases[0].id).toBe(100001);
    }
    const jq = await run(['api', 'GET', '/1.2/release/details/batch', '-f', 'releaseIds=100001', '-f', 'usageTypes=download', '--jq', '.items.releases[0].id', '-o', 'ndjson']);
    expect(jq.exitCode, jq.stderr).toBe(0);
    expect(jq.stdout).toBe('100001\n');
  });

  it('mcat api --xml with -o json or --json: refused before any request (it printed the XML body, exit 0)', async () => {
    const env = { MCAT_BASE_URL: uncalled.baseUrl, MCAT_CONSUMER_KEY: 'k', MCAT_CONSUMER_SECRET: 's', MCAT_COUNTRY: 'GB' };
    for (const [flags, named] of [[['-o', 'json'], '-o json'], [['-o', 'JSON'], '-o json'], [['--json'], '--json']] as const) {
      const r = await mcat(['api', 'GET', '/1.2/release/tracks', '-f', 'releaseId=100001', '--xml', ...flags], { home, env });
      expect(r.exitCode, `${flags.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`mcat: --xml asks the service for XML: it does not go with ${named}\nhint: leave out --xml for the JSON body, or ${named} for the XML\n`);
    }
    expect(uncalled.requests).toBe(0);
    // --xml alone (and with -o table, the default on a terminal) prints the XML body
    for (const flags of [[], ['-o', 'table']]) {
      const r = await run(['api', 'GET', '/1.2/release/tracks', '-f', 'releaseId=100001', '--xml', ...flags]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^<\?xml /);
    }
  });

  it('version and completion: csv, tsv and xml refused as json is (exit 2, stdout empty)', async () => {
    for (const [args, name] of [[['version'], 'version'], [['completion', 'bash'], 'completion']] as const) {
      for (const f of ['csv', 'tsv', 'xml']) {
        const r = await run([...args, '-o', f]);
        expect(r.exitCode, r.stderr).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).toBe(`mcat: -o ${f}: 'mcat ${name}' prints no ${f.toUpperCase()}\n`);
      }
      const plain = await run([...args, '-o', 'table']);
      expect(plain.exitCode, plain.stderr).toBe(0);
      expect(plain.stdout).not.toBe('');
    }
  });
});

// End to end: the built bin/mcat against a sandbox on 127.0.0.1, asserting stdout, stderr and exit code.
import { describe, expect, it } from 'vitest';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { sandboxForFile } from '../helpers/file-sandbox';
import { mcatIn as mcat } from '../helpers/mcat-in';
import { hostileEnv, hostilePerTest, json } from '../helpers/hostile-server';

const box = sandboxForFile(mcat);
const run = box.run;

describe('release batch', () => {
  it('prints the releases as JSON in request order, labelled as sandbox on stderr', async () => {
    const ids = box.sb.info.examples.releaseIds.slice(0, 3);
    const r = await run(['release', 'batch', ...ids.map(String), '-o', 'json']);
    expect(r.exitCode).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.items.releases.map((x: { id: number }) => x.id)).toEqual(ids);
    expect(body.items.errors).toEqual([]);
    expect(r.stderr).toMatch(/sandbox/);
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('json is the service\'s envelope: its schema and any other field kept beside the releases and errors', async () => {
    const ids = box.sb.info.examples.releaseIds.slice(0, 2);
    const r = await run(['release', 'batch', ...ids.map(String), '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(Object.keys(JSON.parse(r.stdout))).toEqual(['status', 'version', 'schema', 'items']);
    expect(JSON.parse(r.stdout).schema).toMatch(/^https?:\/\//);
  });

  it('a type or package filter leaves releases out: no failure, exit 0, in every format', async () => {
    const ids = box.sb.info.examples.releaseIds.slice(0, 4).map(String);
    for (const args of [['--type', 'single'], ['--packages', '9']]) {
      for (const format of ['json', 'ndjson', 'xml']) {
        const r = await run(['release', 'batch', ...ids, ...args, '-o', format]);
        expect(r.exitCode, `${args.join(' ')} ${format}: ${r.stderr}`).toBe(0);
        expect(r.stderr).not.toMatch(/could not be read|not in the service/);
      }
    }
  });

  it('defaults to JSON when stdout is not a terminal', async () => {
    const r = await run(['release', 'batch', String(box.sb.info.examples.releaseIds[0])]);
    expect(r.exitCode).toBe(0);
    expect(() => JSON.parse(r.stdout)).not.toThrow();
  });

  it('1,200 ids with duplicates and unknown ids come back in request order; unknown ones reported, exit 3', async () => {
    const valid = box.sb.info.examples.releaseIds;
    const unknown = box.sb.info.examples.unknownReleaseId;
    const ids: number[] = [];
    for (let i = 0; i < 1200; i++) ids.push(i % 100 === 7 ? unknown + i : valid[i % valid.length]);
    const dir = mkdtempSync(join(tmpdir(), 'mcat-ids-'));
    const file = join(dir, 'ids.txt');
    writeFileSync(file, '# ids to check\n' + ids.join('\n') + '\n\n');
    const r = await run(['release', 'batch', '--ids-file', file, '-o', 'json']);
    expect(r.exitCode).toBe(3);
    const body = JSON.parse(r.stdout);
    const expected = ids.filter((id) => valid.includes(id));
    expect(body.items.releases.map((x: { id: number }) => x.id)).toEqual(expected);
    const unknownIds = ids.filter((id) => !valid.includes(id));
    expect(body.items.errors.map((e: { itemId: number }) => Number(e.itemId))).toEqual(unknownIds);
    for (const u of unknownIds) expect(r.stderr).toContain(`release ${u}`);
  });

  it('as NDJSON, CSV and TSV, 1,200 ids (3 calls, printed call by call) give the JSON\'s releases line for line, in request order, at every --concurrency', async () => {
    const valid = box.sb.info.examples.releaseIds;
    const unknown = box.sb.info.examples.unknownReleaseId;
    // more distinct ids than one call takes: sandbox ids are numbered in sequence from the examples'
    const from = Math.min(...valid);
    const ids: number[] = [];
    for (let i = 0; i < 1200; i++) ids.push(i % 100 === 7 ? unknown + i : i % 5 === 4 ? ids[i - 3] : from + i);
    const dir = mkdtempSync(join(tmpdir(), 'mcat-ids-'));
    const file = join(dir, 'ids.txt');
    writeFileSync(file, ids.join('\n') + '\n');
    const whole = await run(['release', 'batch', '--ids-file', file, '-o', 'json']);
    expect(whole.exitCode).toBe(3);
    const body = JSON.parse(whole.stdout);
    expect(body.items.releases.length).toBeGreaterThan(1000);
    for (const concurrency of ['1', '3']) {
      const nd = await run(['release', 'batch', '--ids-file', file, '-o', 'ndjson', '--concurrency', concurrency]);
      expect(nd.exitCode).toBe(3);
      expect(nd.stdout).toBe(body.items.releases.map((x: unknown) => JSON.stringify(x) + '\n').join(''));
      expect(nd.stderr).toBe(whole.stderr);
    }
    const csv = await run(['release', 'batch', '--ids-file', file, '-o', 'csv', '--fields', 'id,title']);
    expect(csv.stdout.trim().split('\r\n').slice(1).map((l) => Number(l.split(',')[0]))).toEqual(body.items.releases.map((x: { id: number }) => x.id));
    const tsv = await run(['release', 'batch', '--ids-file', file, '-o', 'tsv', '--fields', 'id']);
    expect(tsv.stdout).toBe('id\n' + body.items.releases.map((x: { id: number }) => `${x.id}\n`).join(''));
    // a field no release has: an error before anything is printed
    const bad = await run(['release', 'batch', '--ids-file', file, '-o', 'ndjson', '--fields', 'id,nosuchfield']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stdout).toBe('');
  });

  it('as NDJSON, a call that fails after an earlier one came back ends the run (exit 1) with the earlier lines printed, none after', async () => {
    const from = Math.min(...box.sb.info.examples.releaseIds);
    const unknown = box.sb.info.examples.unknownReleaseId;
    // the first call: 20 releases and 480 unknown ids (a small answer); the second: 500 releases
    const ids = [...Array.from({ length: 20 }, (_, i) => from + i), ...Array.from({ length: 480 }, (_, i) => unknown + i), ...Array.from({ length: 500 }, (_, i) => from + 100 + i)];
    const dir = mkdtempSync(join(tmpdir(), 'mcat-ids-'));
    const file = join(dir, 'ids.txt');
    writeFileSync(file, ids.join('\n') + '\n');
    const first = await run(['release', 'batch', ...ids.slice(0, 20).map(String), '-o', 'ndjson']);
    const r = await run(['--max-body', '100K', 'release', 'batch', '--ids-file', file, '-o', 'ndjson']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/larger than the 100 KiB cap/);
    expect(r.stdout).toBe(first.stdout);
    expect(r.stdout.split('\n').filter(Boolean).length).toBeGreaterThan(10);
    // the table streams too (issue 13: every table view): the first call's rows printed, fitted to
    // them, before the second call's failure; memory holds the calls in flight, not every release
    const t = await run(['--max-body', '100K', 'release', 'batch', '--ids-file', file, '-o', 'table'], { env: { COLUMNS: '100' } });
    expect(t.exitCode).toBe(1);
    expect(t.stderr).toMatch(/larger than the 100 KiB cap/);
    const rows = t.stdout.split('\n').filter((l) => /^\s*\d+ /.test(l));
    expect(rows.map((l) => Number(l.trim().split(/\s+/)[0]))).toEqual(first.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l).id));
  });

  it('reads ids from stdin with -', async () => {
    const ids = box.sb.info.examples.releaseIds.slice(0, 2);
    const r = await run(['release', 'batch', '-', '-o', 'ndjson'], { input: ids.join(',') + '\n' });
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.id)).toEqual(ids);
  });

  it('the table\'s Released is the date of the usage type asked: download, subscription or ad-supported streaming', async () => {
    const id = String(box.sb.info.examples.releaseIds[0]);
    for (const [usage, key] of [['download', 'download'], ['subscriptionstreaming', 'subscriptionStreaming'], ['adsupportedstreaming', 'adSupportedStreaming']]) {
      const j = await run(['release', 'batch', id, '--usage-types', usage, '-o', 'json']);
      const date = String(JSON.parse(j.stdout).items.releases[0][key].releaseDate).slice(0, 10);
      expect(date, usage).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      const t = await run(['release', 'batch', id, '--usage-types', usage, '-o', 'table'], { env: { COLUMNS: '200' } });
      expect(t.exitCode, t.stderr).toBe(0);
      const [head, row] = t.stdout.split('\n').slice(1);
      expect(head.trimEnd().endsWith('Released'), usage).toBe(true);
      expect(row.trimEnd().endsWith(date), `${usage}: ${row}`).toBe(true);
    }
  });

  it('csv has a header row and one row per release', async () => {
    const ids = box.sb.info.examples.releaseIds.slice(0, 2);
    const r = await run(['release', 'batch', ...ids.map(String), '-o', 'csv']);
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trim().split(/\r\n/);
    expect(lines[0].split(',')[0]).toBe('id');
    expect(lines).toHaveLength(3);
  });

  it("xml is the service's own, ids as attributes", async () => {
    const id = box.sb.info.examples.releaseIds[0];
    const r = await run(['release', 'batch', String(id), '-o', 'xml']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/<response[^>]*status="ok"/);
    expect(r.stdout).toContain(`<release id="${id}"`);
  });

  it('--fields picks columns for ndjson', async () => {
    const id = box.sb.info.examples.releaseIds[0];
    const r = await run(['release', 'batch', String(id), '-o', 'ndjson', '--fields', 'id,title,artist.name']);
    expect(r.exitCode).toBe(0);
    const line = JSON.parse(r.stdout.trim());
    expect(Object.keys(line).sort()).toEqual(['artist', 'id', 'title']);
    expect(Object.keys(line.artist)).toEqual(['name']);
  });

  it('a malformed id is a usage error: one line, exit 2, empty stdout', async () => {
    const r = await run(['release', 'batch', '12', 'abc', '-o', 'json']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^mcat: invalid release id.*'abc'/m);
    expect(r.stderr).not.toMatch(/sandbox/);
  });

  it('a bad id is named with its own source: an argument as such, a line of standard input with its line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcat-ids-'));
    const file = join(dir, 'ids.txt');
    writeFileSync(file, '100001\n100002\n');
    let r = await run(['release', 'batch', 'abc', '--ids-file', file, '-o', 'json']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe("mcat: invalid release id 'abc' (ids are positive whole numbers)");
    r = await run(['release', 'batch', '-', '--ids-file', file, '-o', 'json'], { input: '100002\nxyz\n' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe("mcat: invalid release id in standard input: 'xyz' at line 2 (ids are positive whole numbers)");
    // the order given is the order asked: standard input's ids before the argument's
    const ids = box.sb.info.examples.releaseIds.slice(0, 3);
    r = await run(['release', 'batch', '-', String(ids[2]), '-o', 'ndjson', '--fields', 'id'], { input: `${ids[0]}\n${ids[1]}\n` });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(ids);
  });

  it('no ids at all is a usage error', async () => {
    const r = await run(['release', 'batch', '-o', 'json']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
  });

  it('an unknown output format is a usage error', async () => {
    const r = await run(['release', 'batch', '1', '-o', 'yaml']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/unknown output format 'yaml'/);
  });

  it('an unknown flag exits 2 with a hint', async () => {
    const r = await run(['release', 'batch', '1', '--frobnicate']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^mcat: unknown option '--frobnicate'/m);
    expect(r.stderr).toMatch(/^hint: /m);
  });

  it('a misspelt flag or command: one error line with the suggestion, then the hint (exit 2)', async () => {
    for (const [args, line] of [
      [['release', 'batch', '1', '--fiels', 'id'], "mcat: unknown option '--fiels' (did you mean --fields?)"],
      // the value given with an unknown option may be a secret: never repeated
      [['release', 'batch', '1', '--fiels=id'], "mcat: unknown option '--fiels' (did you mean --fields?)"],
      [['release', 'batch', '1', '--token-secret=HUNTER2'], "mcat: unknown option '--token-secret'"],
      [['release', 'batch', '1', '-ZHUNTER2'], "mcat: unknown option '-Z'"],
      [['relase', 'batch', '1'], "mcat: unknown command 'relase' (did you mean release?)"],
      // after `--` a word is an operand: no command named '--help', and no '--lp' made up for it
      [['--', '--help'], "mcat: unknown command '--help'"],
    ] as const) {
      const r = await run([...args]);
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toEqual([line, expect.stringMatching(/^hint: run 'mcat .*--help' for usage$/)]);
    }
  });

  it('a country the key is not entitled to exits 4', async () => {
    const r = await run(['release', 'batch', String(box.sb.info.examples.releaseIds[0]), '--country', 'JP', '-o', 'json']);
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/2002/);
  });
});

describe('release tracks', () => {
  it('lists the tracks of a release', async () => {
    const r = await run(['release', 'tracks', String(box.sb.info.examples.releaseIds[0]), '-o', 'json']);
    expect(r.exitCode).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.tracks.tracks.length).toBeGreaterThan(0);
    expect(body.tracks.tracks[0].isrc).toMatch(/^[A-Z]{2}[A-Z0-9]{3}\d{7}$/);
  });

  it('explains 2001 in words for an unlicensed release, exit 1', async () => {
    const r = await run(['release', 'tracks', String(box.sb.info.examples.unlicensedReleaseId), '-o', 'json']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/not licensed/);
    expect(r.stderr).toMatch(/2001, HTTP 404/);
  });
});

describe('a command of one id reads it from standard input with -', () => {
  it('release tracks, artist releases and track metadata take one id there; none or two: exit 2, nothing sent', async () => {
    const release = box.sb.info.examples.releaseIds[0];
    const direct = await run(['release', 'tracks', String(release), '-o', 'json']);
    const piped = await run(['release', 'tracks', '-', '-o', 'json'], { input: `# the release\n${release}\n` });
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect(piped.stdout).toBe(direct.stdout);
    const artist = await run(['artist', 'releases', '-', '-o', 'json'], { input: `${box.sb.info.examples.artistWithManyReleases}\n` });
    expect(artist.exitCode, artist.stderr).toBe(0);
    const track = JSON.parse(direct.stdout).tracks.tracks[0].id;
    const meta = await run(['track', 'metadata', '-', '-o', 'json'], { input: `${track}\n` });
    expect(meta.exitCode, meta.stderr).toBe(0);
    const two = await run(['release', 'tracks', '-', '-o', 'json'], { input: `${release}\n${release}\n` });
    expect(two.exitCode).toBe(2);
    expect(two.stdout).toBe('');
    expect(two.stderr.split('\n')[0]).toBe('mcat: standard input holds 2 release ids; one was expected');
    const bad = await run(['track', 'metadata', '-'], { input: '\nx\n' });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr.split('\n')[0]).toBe("mcat: invalid track id in standard input: 'x' at line 2 (ids are positive whole numbers)");
  });
});

describe('artist releases', () => {
  it('pages: --page-size and --page', async () => {
    const a = String(box.sb.info.examples.artistWithManyReleases);
    const r = await run(['artist', 'releases', a, '--page-size', '5', '--page', '2', '-o', 'json']);
    expect(r.exitCode).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.releases.page).toBe(2);
    expect(body.releases.releases).toHaveLength(5);
    expect(body.releases.totalItems).toBeGreaterThan(50);
  });

  it('--all merges every page into one envelope', async () => {
    const a = String(box.sb.info.examples.artistWithManyReleases);
    const r = await run(['artist', 'releases', a, '--all', '-o', 'json']);
    expect(r.exitCode).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.releases.releases.length).toBe(body.releases.totalItems);
    expect(body.releases.page).toBe(1);
    expect(new Set(body.releases.releases.map((x: { id: number }) => x.id)).size).toBe(body.releases.totalItems);
  });

  it('--limit stops after N items, streamed as ndjson', async () => {
    const a = String(box.sb.info.examples.artistWithManyReleases);
    const r = await run(['artist', 'releases', a, '--limit', '13', '-o', 'ndjson']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(13);
  });

  it('--page-size over 50 is refused before sending', async () => {
    const r = await run(['artist', 'releases', '1', '--page-size', '51']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--page-size must be at most 50/);
  });

  it('a page past the last one is 1003, explained', async () => {
    const a = String(box.sb.info.examples.artistWithManyReleases);
    const r = await run(['artist', 'releases', a, '--page', '999', '-o', 'json']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/past the last page/);
    expect(r.stderr).toMatch(/1003/);
  });

  it('an artist with no releases gives an empty list', async () => {
    const r = await run(['artist', 'releases', String(box.sb.info.examples.artistWithNoReleases), '-o', 'json']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).releases.totalItems).toBe(0);
  });
});

describe('track metadata', () => {
  it('json gives everything: tags, tagstrengths, embeddings', async () => {
    const r = await run(['track', 'metadata', String(box.sb.info.examples.trackIds[0]), '-o', 'json']);
    expect(r.exitCode).toBe(0);
    const t = JSON.parse(r.stdout).track;
    expect(typeof t.bpm).toBe('number');
    expect(Array.isArray(t.embeddings)).toBe(true);
    expect(Object.keys(t.tagstrengths).length).toBeGreaterThan(20);
    expect(t).toHaveProperty('primaryMoodCluster');
  });

  it('the table view is a readable sheet with the strongest tag strengths', async () => {
    const r = await run(['track', 'metadata', String(box.sb.info.examples.trackIds[0]), '-o', 'table']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/BPM/);
    expect(r.stdout).toMatch(/Strongest tag strengths/);
    expect(r.stdout).not.toMatch(/\u001b\[/);
    const withEmb = await run(['track', 'metadata', String(box.sb.info.examples.trackIds[0]), '-o', 'table', '--embeddings']);
    expect(withEmb.stdout).toMatch(/Embeddings \(\d+ values\)/);
  });
});

describe('a country that is not two letters', () => {
  it('is named where it came from (--country or MCAT_COUNTRY); exit 2, nothing printed', async () => {
    let r = await run(['release', 'batch', '100001', '--country', 'GBR']);
    expect([r.exitCode, r.stdout, r.stderr.trim().split('\n').pop()]).toEqual([2, '', "mcat: --country must be a two-letter ISO code, got 'GBR'"]);
    r = await run(['release', 'batch', '100001'], { env: { MCAT_COUNTRY: 'junk' } });
    expect([r.exitCode, r.stdout, r.stderr.trim().split('\n').pop()]).toEqual([2, '', "mcat: MCAT_COUNTRY must be a two-letter ISO code, got 'junk'"]);
  });
});

describe('release batch against answers the sandbox never gives', () => {
  const hostile = hostilePerTest();
  const BATCH = '/1.2/release/details/batch';
  const release = (id: number) => ({ id, title: `Release ${id}`, artist: { id: 1, name: 'The Testers' } });

  it('an id answered with neither a release nor an error is named on stderr, exit 3 (json, ndjson, xml)', async () => {
    const s = await hostile();
    s.on(BATCH, json({ status: 'ok', version: '1.2', schema: 'http://x/api.xsd', extra: { kept: true }, items: { releases: [release(100001)], errors: [], more: 1 } }));
    const r = await mcat(['release', 'batch', '100001', '900001', '-o', 'json'], { env: hostileEnv(s) });
    expect(r.exitCode).toBe(3);
    expect(JSON.parse(r.stdout)).toEqual({ status: 'ok', version: '1.2', schema: 'http://x/api.xsd', extra: { kept: true }, items: { releases: [release(100001)], errors: [], more: 1 } });
    expect(r.stderr).toContain("mcat: release 900001: not in the service's answer (neither a release nor an error)");
    expect(r.stderr).toContain('mcat: 1 of 2 release ids could not be read; the others were printed');
    const nd = await mcat(['release', 'batch', '100001', '900001', '-o', 'ndjson'], { env: hostileEnv(s) });
    expect(nd.exitCode).toBe(3);
    expect(nd.stderr).toContain('release 900001: not in the service');
    s.on(BATCH, (_req, res) =>
      void res
        .writeHead(200, { 'content-type': 'application/xml' })
        .end('<?xml version="1.0"?><response status="ok" version="1.2"><items><releases><release id="100001"><title>T</title></release></releases><errors/></items></response>'),
    );
    const x = await mcat(['release', 'batch', '100001', '900001', '-o', 'xml'], { env: hostileEnv(s) });
    expect(x.exitCode).toBe(3);
    expect(x.stderr).toContain('release 900001: not in the service');
  });

  it('an XML error naming its release by the spec\'s Itemid is said with that id', async () => {
    const s = await hostile();
    s.on(BATCH, (_req, res) =>
      void res
        .writeHead(200, { 'content-type': 'application/xml' })
        .end('<?xml version="1.0"?><response status="ok" version="1.2"><items><releases/><errors><error code="2001"><Itemid>900001</Itemid><errorMessage>Release not found</errorMessage></error></errors></items></response>'),
    );
    const x = await mcat(['release', 'batch', '900001', '-o', 'xml'], { env: hostileEnv(s) });
    expect(x.exitCode).toBe(3);
    expect(x.stderr).toContain('mcat: release 900001: Release not found (2001)');
    expect(x.stderr).not.toContain('undefined');
  });
});

// Scripting as a gh user would: the built-in jq (--jq, run with no jq on PATH), --json FIELDS,
// field paths and tsv, outputs piped into inputs, --quiet, `mcat version` and help on stdout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { sandboxProfileEnv, startTestSandbox } from '../helpers/sandbox';
import { repoRoot, spawnMcat } from '../helpers/mcat';
import { mcatIn as mcat } from '../helpers/mcat-in';

 

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;
let sb: Sandbox;
let dir: string;
/** PATH with node alone: whatever --jq does, it does without a jq program */
let noJqPath: string;
const run = (args: string[], opts: Parameters<typeof mcat>[1] = {}) =>
  mcat(args, { cwd: dir, ...opts, env: { ...sandboxProfileEnv(sb), PATH: noJqPath, ...opts.env } });

async function json(args: string[]): Promise<any> {
  const r = await run([...args, '-o', 'json']);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

/** Words of a command line as a POSIX shell splits it (single and double quotes, no expansions). */
function words(line: string): string[] {
  const out: string[] = [];
  let cur: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      cur = (cur ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      const end = line.indexOf('"', i + 1);
      cur = (cur ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === ' ') {
      if (cur !== undefined) out.push(cur);
      cur = undefined;
    } else cur = (cur ?? '') + c;
  }
  if (cur !== undefined) out.push(cur);
  return out;
}

beforeAll(async () => {
  sb = await startTestSandbox();
  dir = mkdtempSync(join(tmpdir(), 'mcat-scripting-'));
  noJqPath = join(dir, 'bin');
  execFileSync('mkdir', [noJqPath]);
  symlinkSync(process.execPath, join(noJqPath, 'node'));
  writeFileSync(join(dir, 'ids.txt'), sb.info.examples.releaseIds.slice(0, 4).join('\n') + '\n');
});
afterAll(async () => {
  await sb?.close();
});

describe('--jq: the README recipes, with no jq installed', () => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## jq recipes'), readme.indexOf('\n## ', readme.indexOf('## jq recipes') + 5));

  const RECIPES: { line: string; expected: () => Promise<string[]> }[] = [
    {
      line: "mcat release batch --ids-file ids.txt --jq '.items.releases[] | [.id, .title, .artist.name] | @tsv'",
      expected: async () => {
        const ids = readFileSync(join(dir, 'ids.txt'), 'utf8').trim().split('\n');
        const body = await json(['release', 'batch', ...ids]);
        return body.items.releases.map((r: any) => [r.id, r.title, r.artist.name].join('\t'));
      },
    },
    {
      line: "mcat locker --all --jq '.locker.lockerReleases.lockerRelease[] | select(.available == false) | .release.id'",
      expected: async () => (await json(['locker', '--all'])).locker.lockerReleases.lockerRelease.filter((lr: any) => lr.available === false).map((lr: any) => String(lr.release.id)),
    },
    {
      line: "mcat locker --all --jq '[.locker.lockerReleases.lockerRelease[].lockerTracks.lockerTrack[] | select(.remainingDownloads == 0)] | length'",
      expected: async () => {
        const all = (await json(['locker', '--all'])).locker.lockerReleases.lockerRelease.flatMap((lr: any) => lr.lockerTracks.lockerTrack);
        return [String(all.filter((t: any) => t.remainingDownloads === 0).length)];
      },
    },
    {
      line: "mcat artist releases 1001 --all --jq '.releases.releases | group_by(.type) | map({type: .[0].type, n: length})'",
      expected: async () => {
        const rels = (await json(['artist', 'releases', '1001', '--all'])).releases.releases;
        const types = [...new Set<string>(rels.map((r: any) => r.type))].sort();
        return [JSON.stringify(types.map((type) => ({ type, n: rels.filter((r: any) => r.type === type).length })))];
      },
    },
    {
      line: "mcat track metadata 10000101 --jq '.track.tagstrengths | to_entries | sort_by(-.value) | .[:5]'",
      expected: async () => {
        const ts = (await json(['track', 'metadata', '10000101'])).track.tagstrengths;
        // jq's sort is stable: equal values keep their order
        const entries = Object.entries(ts).map(([key, value]) => ({ key, value })).sort((a: any, b: any) => b.value - a.value);
        return [JSON.stringify(entries.slice(0, 5))];
      },
    },
  ];

  it('no jq on the PATH the recipes run with', () => {
    expect(() => execFileSync('sh', ['-c', 'command -v jq'], { env: { PATH: noJqPath } })).toThrow();
  });

  for (const r of RECIPES) {
    it(r.line.slice(0, 80), async () => {
      expect(section, 'the README shows this --jq form').toContain(r.line);
      const got = await run(words(r.line).slice(1));
      expect(got.stderr).toBe('');
      expect(got.exitCode).toBe(0);
      const want = await r.expected();
      expect(want.length).toBeGreaterThan(0);
      expect(got.stdout).toBe(want.map((l) => l + '\n').join(''));
    });
  }

  it('every --jq line of the README recipes is one of those tested', () => {
    const lines = section.split('\n').filter((l) => l.startsWith('mcat ') && l.includes('--jq'));
    expect(lines.sort()).toEqual(RECIPES.map((r) => r.line).sort());
  });
});

describe('--jq', () => {
  it('prints strings raw and other values as compact JSON, one a line', async () => {
    const r = await run(['playlist', 'list', '--jq', '.playlists.playlist[0] | .name, .trackCount, {id}, null, "tab\\there"']);
    expect(r.exitCode, r.stderr).toBe(0);
    const first = (await json(['playlist', 'list'])).playlists.playlist[0];
    expect(r.stdout).toBe(`${first.name}\n${first.trackCount}\n{"id":"${first.id}"}\nnull\ntab\there\n`);
  });

  it('with --all runs once on the merged document (ndjson becomes that one document too)', async () => {
    for (const o of [[], ['-o', 'ndjson']]) {
      const r = await run(['playlist', 'list', '--all', '--page-size', '1', ...o, '--jq', '[(.playlists.playlist | length), .playlists.totalItems, .playlists.pageSize]']);
      expect(r.exitCode, r.stderr).toBe(0);
      const n = sb.info.examples.playlistIds.length;
      expect(r.stdout).toBe(`[${n},${n},${n}]\n`);
    }
  });

  it('runs on the picked array of --json FIELDS', async () => {
    const r = await run(['playlist', 'list', '--json', 'id,trackCount', '--jq', 'map(.trackCount) | add']);
    expect(r.exitCode, r.stderr).toBe(0);
    const body = await json(['playlist', 'list']);
    expect(r.stdout).toBe(`${body.playlists.playlist.reduce((n: number, p: any) => n + p.trackCount, 0)}\n`);
  });

  it('a syntax error is a usage error before anything is sent (exit 2)', async () => {
    // nothing listens on port 9: a request would fail with exit 1
    const r = await run(['release', 'batch', '100001', '--jq', '.items |'], { env: { MCAT_BASE_URL: 'http://127.0.0.1:9' } });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^mcat: --jq: syntax error, unexpected end of file .*\nhint: jq's manual/);
    const f = await run(['release', 'batch', '100001', '--jq', 'nosuchfunction(1)'], { env: { MCAT_BASE_URL: 'http://127.0.0.1:9' } });
    expect(f.exitCode).toBe(2);
    expect(f.stderr).toMatch(/^mcat: --jq: nosuchfunction\/1 is not defined/);
  });

  it('a program that never ends is stopped by Ctrl-C (jq holds the thread: the signal ends the process)', async () => {
    // (killed for good within the test's own time whatever happens: a run Ctrl-C cannot stop would
    // otherwise outlive the test, the worker and the suite, spinning for hours)
    const child = spawnMcat(['release', 'batch', '100001', '--jq', 'last(range(1e12))'], { env: sandboxProfileEnv(sb), timeout: 12_000 });
    const reaper = setTimeout(() => child.kill('SIGKILL'), 15_000);
    // the answer is in and jq is running long before this (a run with no signal takes hours)
    await new Promise((res) => setTimeout(res, 1500));
    const sent = Date.now();
    child.kill('SIGINT');
    const r = await child.finally(() => clearTimeout(reaper));
    expect(r.timedOut, 'Ctrl-C did not stop the run').toBe(false);
    expect(Date.now() - sent).toBeLessThan(10_000);
    // killed by the signal (a shell's 130), or, had it come before jq ran, mcat's own exit 130
    expect(r.signal === 'SIGINT' || r.exitCode === 130, `exit ${r.exitCode}, signal ${r.signal}`).toBe(true);
    expect(r.stdout).toBe('');
  });

  it('an error while it runs is exit 1 with nothing on stdout', async () => {
    const r = await run(['playlist', 'list', '--jq', '.playlists.playlist[] | .id, error("stop here")']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe("mcat: --jq: stop here\nhint: the request succeeded; the jq program failed on its answer, so nothing was printed\n");
  });

  it('goes only with JSON output, and only on commands that print JSON', async () => {
    const csv = await run(['playlist', 'list', '-o', 'csv', '--jq', '.']);
    expect([csv.exitCode, csv.stdout, csv.stderr.split('\n')[0]]).toEqual([2, '', 'mcat: --jq prints JSON, not csv']);
    // the hints say what does apply: --fields goes with json, and not with xml
    const xml = await run(['playlist', 'list', '--json', 'id', '-o', 'xml']);
    expect([xml.exitCode, xml.stdout]).toEqual([2, '']);
    expect(xml.stderr).not.toMatch(/pick fields with --fields/);
    const fieldsXml = await run(['playlist', 'list', '--fields', 'id', '-o', 'xml']);
    expect(fieldsXml.stderr).toMatch(/^hint: use --fields with table, json, ndjson, csv or tsv$/m);
    const none = await run(['completion', 'bash', '--jq', '.']);
    expect([none.exitCode, none.stdout, none.stderr]).toEqual([2, '', "mcat: --jq: 'mcat completion' prints no JSON\n"]);
  });

  it('does not see the environment: $ENV is not the shell\'s', async () => {
    const r = await run(['playlist', 'list', '--jq', '$ENV.MCAT_CONSUMER_SECRET, env.MCAT_TOKEN_SECRET']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('null\nnull\n');
  });

  it('works on commands that write their own JSON (auth status, sandbox info, api)', async () => {
    const a = await run(['auth', 'status', '--jq', '.baseUrl']);
    expect([a.exitCode, a.stdout]).toEqual([0, `${sb.baseUrl}\n`]);
    const s = await run(['sandbox', 'info', '--data', sb.dataDir, '--jq', '.seed']);
    expect([s.exitCode, s.stdout]).toEqual([0, `${sb.info.seed}\n`]);
    const api = await run(['api', 'GET', '/1.2/release/details/batch', '-f', 'releaseIds=100001', '-f', 'usageTypes=download', '--jq', '.items.releases[0].id']);
    expect([api.exitCode, api.stdout]).toEqual([0, '100001\n']);
  });
});

describe('--json FIELDS, field paths, csv and tsv', () => {
  it('--json id,name is -o json --fields id,name: an array of just those fields', async () => {
    const r = await run(['playlist', 'list', '--json', 'id,name,tags[].name']);
    expect(r.exitCode, r.stderr).toBe(0);
    const body = await json(['playlist', 'list']);
    expect(JSON.parse(r.stdout)).toEqual(body.playlists.playlist.map((p: any) => ({ id: p.id, name: p.name, tags: p.tags.map((t: any) => ({ name: t.name })) })));
    const same = await run(['playlist', 'list', '-o', 'json', '--fields', 'id,name,tags[].name']);
    expect(same.stdout).toBe(r.stdout);
  });

  it('--json alone lists the fields there are (computed names too), sending nothing', async () => {
    const r = await run(['release', 'tracks', '100002', '--json'], { env: { MCAT_BASE_URL: 'http://127.0.0.1:9' } });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    const [line, hint] = r.stderr.trimEnd().split('\n');
    expect(line).toBe('mcat: --json needs the fields to print, e.g. --json id,number');
    expect(hint).toMatch(/^hint: fields: discTrack, fullTitle, artistCredit, time, price, id, title, version, /);
  });

  it('--json alone lists every field the rows of playlist show and playlist list have', async () => {
    const leaves = (v: unknown, at = ''): string[] =>
      Array.isArray(v) ? v.flatMap((x) => leaves(x, `${at}[]`)) : v && typeof v === 'object' ? Object.entries(v).flatMap(([k, x]) => leaves(x, at ? `${at}.${k}` : k)) : [at];
    for (const [args, rows] of [
      [['playlist', 'show', String(sb.info.examples.playlistIds[0])], (d: any) => d.playlist.tracks],
      [['playlist', 'list'], (d: any) => d.playlists.playlist],
    ] as [string[], (d: any) => any[]][]) {
      const r = await run([...args, '--json']);
      expect(r.exitCode).toBe(2);
      const listed = new Set(r.stderr.split('\n')[1].replace(/^hint: fields: /, '').split(', '));
      const there = new Set(rows(await json(args)).flatMap((row) => leaves(row)).map((p) => p.replace(/^(annotations)\..*/, '$1')));
      for (const path of there) expect(listed.has(path) || [...listed].some((l) => path.startsWith(`${l}.`)), `${args.join(' ')}: ${path}`).toBe(true);
    }
  });

  it('a path no row has is exit 2 naming the fields there are; array paths and computed names read values', async () => {
    const bad = await run(['release', 'tracks', '100002', '-o', 'csv', '--fields', 'id,titel']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/^mcat: --fields: 'titel' matches nothing in any row\nhint: fields there are: discTrack, fullTitle, artistCredit, time, price, id, title, version, artist\.id/);
    const j = await run(['release', 'tracks', '100002', '--json', 'titel']);
    expect(j.stderr.split('\n')[0]).toBe("mcat: --json: 'titel' matches nothing in any row");
    const tracks = (await json(['release', 'tracks', '100002'])).tracks.tracks;
    const ok = await run(['release', 'tracks', '100002', '-o', 'tsv', '--fields', 'id,fullTitle,download.packages[0].price.recommendedRetailPrice']);
    expect(ok.exitCode, ok.stderr).toBe(0);
    const full = (t: any) => (t.version ? `${t.title} (${t.version})` : t.title);
    expect(ok.stdout).toBe(
      'id\tfullTitle\tdownload.packages[0].price.recommendedRetailPrice\n' +
        tracks.map((t: any) => `${t.id}\t${full(t)}\t${t.download.packages[0].price.recommendedRetailPrice}\n`).join(''),
    );
  });

  it('csv keeps timestamps as received; tsv has one header line and no quoting', async () => {
    const body = await json(['playlist', 'list']);
    const csv = await run(['playlist', 'list', '-o', 'csv']);
    expect(csv.exitCode, csv.stderr).toBe(0);
    const first = body.playlists.playlist[0];
    expect(csv.stdout.split('\r\n')[1]).toBe(`${first.id},${first.name},${first.status},${first.visibility},${first.trackCount},${first.lastUpdated}`);
    expect(first.lastUpdated).toMatch(/T\d\d:\d\d:\d\d/);
    const tsv = await run(['playlist', 'list', '-o', 'tsv']);
    expect(tsv.stdout.split('\n')[0]).toBe('id\tname\tstatus\tvisibility\ttrackCount\tlastUpdated');
    expect(tsv.stdout.split('\n')[1]).toBe(`${first.id}\t${first.name}\t${first.status}\t${first.visibility}\t${first.trackCount}\t${first.lastUpdated}`);
  });
});

describe('--fields where a command prints no list of items', () => {
  // silently ignored, it printed everything as if the fields had been picked
  it('is refused before anything is sent (exit 2), with --jq offered where the command prints JSON', async () => {
    for (const [args, hint] of [
      [['locker', 'summary'], true],
      [['locker', 'check', '10000101'], true],
      [['playlist', 'export'], true],
      [['auth', 'status', '--no-verify'], true],
      [['sandbox', 'info'], true],
      [['api', 'GET', '/1.2/user/locker'], true],
      [['version'], false],
      [['locker', 'download', '10000101', '--dry-run'], false],
    ] as [string[], boolean][]) {
      const r = await run([...args, '--fields', 'releases']);
      expect([r.exitCode, r.stdout], `${args.join(' ')}: ${r.stderr}`).toEqual([2, '']);
      const lines = r.stderr.trim().split('\n');
      expect(lines[0]).toBe(`mcat: --fields: 'mcat ${args.filter((a) => !a.startsWith('-') && !/^\d/.test(a) && !a.startsWith('/') && a !== 'GET').join(' ')}' prints no list of items to pick fields of`);
      expect(lines.slice(1)).toEqual(hint ? ['hint: filter its JSON with --jq instead'] : []);
    }
  });

  it('profile list and locker stream-check pick their fields in every format', async () => {
    expect((await run(['profile', 'list', '--fields', 'name', '-o', 'csv'])).stdout.split(/\r?\n/).filter(Boolean)).toEqual(['name', 'sandbox']);
    expect((await run(['profile', 'list', '--fields', 'name,current', '-o', 'ndjson'])).stdout).toBe('{"name":"sandbox","current":true}\n');
    const sc = await run(['locker', 'stream-check', '10000101', '--fields', 'trackId,streamable', '-o', 'csv']);
    expect(sc.stdout.split(/\r?\n/).filter(Boolean)).toEqual(['trackId,streamable', '10000101,true']);
  });
});

describe('outputs feed inputs (each listing piped into the command that takes it)', () => {
  const P = () => sb.info.examples.playlistIds[0];
  const P2 = () => sb.info.examples.playlistIds[1];
  const G = () => sb.info.examples.groupId;
  const pipe = async (from: string[], to: string[]) => {
    const a = await run(from);
    expect(a.exitCode, a.stderr).toBe(0);
    const b = await run(to, { input: a.stdout });
    expect(b.exitCode, b.stderr).toBe(0);
    return b;
  };
  const trackIds = async (id: string) => (await json(['playlist', 'show', id])).playlist.tracks.map((t: any) => t.trackId);
  const groupIds = async () => (await json(['group', 'show', G()])).playlistGroup.playlists.map((p: any) => p.id);

  it('release tracks -o ndjson | playlist replace --from -: ids, titles, versions, artist and release as metadata', async () => {
    const tracks = (await json(['release', 'tracks', '100002'])).tracks.tracks;
    await pipe(['release', 'tracks', '100002', '-o', 'ndjson'], ['playlist', 'replace', P(), '--from', '-']);
    const got = (await json(['playlist', 'show', P()])).playlist.tracks;
    expect(got.map((t: any) => t.trackId)).toEqual(tracks.map((t: any) => String(t.id)));
    const withVersion = tracks.findIndex((t: any) => t.version);
    expect(withVersion).toBeGreaterThanOrEqual(0);
    const t = tracks[withVersion];
    expect(got[withVersion]).toMatchObject({ trackTitle: t.title, trackVersion: t.version, artistAppearsAs: t.artist.appearsAs, releaseTitle: t.release.title, releaseArtistAppearsAs: t.release.artist.appearsAs });
    expect(String(got[withVersion].releaseId)).toBe(String(t.release.id));
  });

  it('release tracks -o csv | playlist replace --from -: the metadata sent is the NDJSON\'s (version and release too)', async () => {
    const tracks = (await json(['release', 'tracks', '100002'])).tracks.tracks;
    const sent = async (o: string) => {
      const a = await run(['release', 'tracks', '100002', '-o', o]);
      const d = await run(['playlist', 'replace', P(), '--from', '-', '--dry-run', '--jq', '.request.tracks'], { input: a.stdout });
      expect(d.exitCode, d.stderr).toBe(0);
      // (CSV is text: a release id comes as a string, as the service takes it either way)
      return JSON.parse(d.stdout).map((t: any) => ({ ...t, releaseId: String(t.releaseId) }));
    };
    const viaCsv = await sent('csv');
    expect(viaCsv).toEqual(await sent('ndjson'));
    expect(viaCsv.some((t: any) => t.trackVersion)).toBe(true);
    expect(viaCsv.every((t: any) => t.releaseId && t.releaseTitle)).toBe(true);
    await pipe(['release', 'tracks', '100002', '-o', 'csv'], ['playlist', 'replace', P(), '--from', '-']);
    expect(await trackIds(P())).toEqual(tracks.map((t: any) => String(t.id)));
  });

  it('playlist show -o ndjson and -o csv | playlist replace --from - (copies the tracks, their metadata whole)', async () => {
    // tracks whose metadata is not the catalogue's: a copy must carry it, not have it filled in
    const own = [1, 2].map((n) => ({ trackId: String(10000100 + n), trackTitle: `T${n}`, trackVersion: `V${n}`, artistAppearsAs: `A${n}`, releaseId: '100001', releaseTitle: `R${n}`, releaseVersion: `RV${n}`, releaseArtistAppearsAs: `RA${n}` }));
    expect((await run(['playlist', 'replace', P(), '--from', '-'], { input: JSON.stringify(own) })).exitCode).toBe(0);
    const meta = async (id: string) => (await json(['playlist', 'show', id])).playlist.tracks.map((t: any) => Object.fromEntries(['trackId', 'trackTitle', 'trackVersion', 'artistAppearsAs', 'releaseId', 'releaseTitle', 'releaseVersion', 'releaseArtistAppearsAs'].map((k) => [k, String(t[k] ?? '')])));
    const want = await meta(P());
    expect(want).toEqual(own);
    for (const o of ['ndjson', 'csv']) {
      await run(['playlist', 'replace', P2(), '--from', '-', '--input-format', 'ndjson'], { input: '{"trackId":"10000101"}\n' });
      await pipe(['playlist', 'show', P(), '-o', o], ['playlist', 'replace', P2(), '--from', '-']);
      expect(await meta(P2()), o).toEqual(want);
    }
  });

  it('locker -o ndjson | playlist create --from -: every track of those releases', async () => {
    const lr = (await json(['locker', '--limit', '2'])).locker.lockerReleases.lockerRelease;
    const b = await pipe(['locker', '--limit', '2', '-o', 'ndjson'], ['playlist', 'create', '--name', 'From the locker', '--from', '-', '-o', 'json']);
    const created = JSON.parse(b.stdout).playlist.id;
    expect(await trackIds(created)).toEqual(lr.flatMap((r: any) => r.lockerTracks.lockerTrack.map((t: any) => String(t.track.id))));
  });

  it('playlist list -o ndjson, csv and tsv | group replace --playlist -', async () => {
    const ids = (await json(['playlist', 'list', '--all'])).playlists.playlist.map((p: any) => p.id);
    for (const o of ['ndjson', 'csv', 'tsv']) {
      await run(['group', 'replace', G(), '--name', 'reset', '--playlist', P()]);
      await pipe(['playlist', 'list', '--all', '-o', o], ['group', 'replace', G(), '--name', `All (${o})`, '--playlist', '-']);
      expect((await groupIds()).sort(), o).toEqual([...ids].sort());
    }
  });

  it('group show -o ndjson and -o csv | group add --playlist -; --json id too', async () => {
    for (const from of [['-o', 'ndjson'], ['-o', 'csv'], ['--json', 'id']]) {
      const before = await groupIds();
      await pipe(['group', 'show', G(), ...from], ['group', 'add', G(), '--playlist', '-']);
      expect(await groupIds(), from.join(' ')).toEqual(before);
    }
  });

  it('an empty input (the command before the pipe failed) empties nothing: exit 2, nothing sent', async () => {
    const tracks = await trackIds(P());
    const group = await groupIds();
    expect(tracks.length).toBeGreaterThan(0);
    expect(group.length).toBeGreaterThan(0);
    const d = mkdtempSync(join(tmpdir(), 'mcat-empty-'));
    writeFileSync(join(d, 'none.ndjson'), '\n  \n');
    for (const [args, input] of [
      [['playlist', 'replace', P(), '--from', '-'], ''],
      [['playlist', 'replace', P(), '--from', '-', '--input-format', 'ndjson'], '\n'],
      [['playlist', 'replace', P(), '--from', join(d, 'none.ndjson')], undefined],
      [['playlist', 'create', '--name', 'From nothing', '--from', '-'], ''],
      [['group', 'replace', G(), '--name', 'Emptied', '--playlist', '-'], ''],
      [['group', 'add', G(), '--playlist', '-'], ' \n'],
    ] as [string[], string | undefined][]) {
      const r = await run(args, input === undefined ? {} : { input });
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr, args.join(' ')).toMatch(/^mcat: (standard input|.*none\.ndjson): empty input, expected .*nothing was sent\n/);
    }
    expect(await trackIds(P())).toEqual(tracks);
    expect(await groupIds()).toEqual(group);
    expect((await json(['playlist', 'list', '--all'])).playlists.playlist.map((p: any) => p.name)).not.toContain('From nothing');
    // emptying a playlist on purpose: a file that says so
    const r = await run(['playlist', 'replace', P2(), '--from', '-'], { input: '[]' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await trackIds(P2())).toEqual([]);
  });

  it('a listing that names no tracks is refused with the file and line, nothing sent', async () => {
    const r = await run(['playlist', 'replace', P(), '--from', '-', '--input-format', 'csv'], { input: 'release.id,title\r\n100001,X\r\n' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^mcat: standard input:1: unknown CSV column "release\.id" \(columns: trackId, .*or a catalogue track listing/);
  });
});

describe('small gh habits', () => {
  it('-q and MCAT_QUIET=1 silence the sandbox label; errors still print', async () => {
    const home = { sandboxDir: sb.dataDir, env: { MCAT_BASE_URL: undefined, MCAT_CONSUMER_KEY: undefined, MCAT_CONSUMER_SECRET: undefined, MCAT_TOKEN: undefined, MCAT_TOKEN_SECRET: undefined, MCAT_COUNTRY: undefined, MCAT_USER_ID: undefined } };
    const loud = await run(['playlist', 'list', '-o', 'json'], home);
    expect(loud.stderr).toMatch(/^mcat: using the built-in sandbox/);
    const q = await run(['playlist', 'list', '-o', 'json', '-q'], home);
    expect([q.exitCode, q.stderr]).toEqual([0, '']);
    const env = await run(['playlist', 'list', '-o', 'json'], { ...home, env: { ...home.env, MCAT_QUIET: '1' } });
    expect([env.exitCode, env.stderr]).toEqual([0, '']);
    const err = await run(['release', 'batch', '100001', '900000', '-o', 'json', '--quiet'], home);
    expect(err.exitCode).toBe(3);
    expect(err.stderr).toMatch(/^mcat: release 900000: /);
    expect(err.stderr).not.toMatch(/sandbox/);
  });

  it('--quiet silences the summaries of apply and export, not the failures', async () => {
    const P = sb.info.examples.playlistIds[2];
    const ok = join(dir, 'ok.ndjson');
    writeFileSync(ok, JSON.stringify({ op: 'details', playlistId: P, description: 'quiet run' }) + '\n');
    const loud = await run(['playlist', 'apply', ok, '--journal', join(dir, 'j1')]);
    expect(loud.stderr).toMatch(/1 applied/);
    const q = await run(['playlist', 'apply', ok, '--journal', join(dir, 'j2'), '-q']);
    expect([q.exitCode, q.stderr]).toEqual([0, '']);
    const bad = join(dir, 'bad.ndjson');
    writeFileSync(bad, JSON.stringify({ op: 'details', playlistId: 'f'.repeat(24), description: 'no such playlist' }) + '\n');
    const f = await run(['playlist', 'apply', bad, '--journal', join(dir, 'j3'), '-q']);
    expect(f.exitCode).not.toBe(0);
    expect(f.stderr).toMatch(/bad\.ndjson:1: details failed/);
    const e = await run(['playlist', 'export', '-q']);
    expect([e.exitCode, e.stderr]).toEqual([0, '']);
    expect(e.stdout.trim().split('\n').length).toBeGreaterThan(0);
    // a shard's scope and summary lines are notices too
    const shardLoud = await run(['playlist', 'apply', ok, '--shard', '1/1', '--journal', join(dir, 'j4')]);
    expect(shardLoud.stderr).toMatch(/^mcat: shard 1\/1: 1 of 1 edit/m);
    const shardQuiet = await run(['playlist', 'apply', ok, '--shard', '1/1', '--journal', join(dir, 'j5'), '-q']);
    expect([shardQuiet.exitCode, shardQuiet.stderr]).toEqual([0, '']);
    const exportShard = await run(['playlist', 'export', '--shard', '1/2', '-q']);
    expect([exportShard.exitCode, exportShard.stderr]).toEqual([0, '']);
  });

  it('mcat version is mcat --version', async () => {
    const a = await run(['version']);
    const b = await run(['--version']);
    expect(a).toEqual({ ...b, exitCode: 0 });
    expect(a.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('mcat and mcat playlist with no subcommand print their help on stdout and exit 0', async () => {
    for (const args of [[], ['playlist']]) {
      const r = await run(args);
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(new RegExp(`^Usage: mcat ${args.join(' ')}`.trimEnd()));
    }
  });

  it('the global options are listed once, in mcat --help; a subcommand names them in one short block, 80 columns wide', async () => {
    const top = await run(['--help']);
    expect(top.stdout).toMatch(/--jq <program>/);
    const sub = await run(['playlist', 'list', '--help']);
    expect(sub.stdout).not.toMatch(/Global Options:/);
    expect(sub.stdout).not.toMatch(/--base-url <url>/);
    const at = sub.stdout.indexOf('Global options:');
    const block = sub.stdout.slice(at).split('\n\n')[0].trimEnd().split('\n');
    expect(block.map((l) => l.trim()).join(' ')).toBe(
      "Global options: -o, --fields, --json, --jq, -q, --no-color, --no-pager, -v, -p, --base-url, --country, --auth-in, --timeout, --retries, --max-body (see 'mcat help globals')",
    );
    for (const l of block) expect(l.length).toBeLessThanOrEqual(80);
    const g = await run(['help', 'globals']);
    expect(g.exitCode).toBe(0);
    expect(g.stdout).toMatch(/^Global options \(any command\):\n {2}-o, --output <format>/);
    for (const f of ['--fields', '--json [fields]', '--jq <program>', '-q, --quiet', '--base-url <url>', '--retries <n>']) expect(g.stdout).toContain(f);
  });
});

// End to end: `playlist apply FILE --shard K/N` (issue 15). Four processes apply one file at
// once against one sandbox, each its own shard: every edit is applied exactly once, by exactly
// one shard, and every playlist and group ends as the file says. Also: --dry-run per shard,
// `export --shard`, and bad --shard values refused before anything is sent.
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { sandboxPerTest } from '../helpers/sandbox';
import { mcat, tempHome } from '../helpers/mcat';

 

const sandbox = sandboxPerTest();
type Sandbox = Awaited<ReturnType<typeof sandbox>>;

const ndjson = (edits: unknown[]) => edits.map((e) => JSON.stringify(e)).join('\n') + '\n';
const hexId = (n: number) => n.toString(16).padStart(24, '0');

/** The documented hash: the first 4 bytes of SHA-256 as a big-endian integer, mod N, plus 1. */
const shardOf = (s: string, n: number) => (createHash('sha256').update(s, 'utf8').digest().readUInt32BE(0) % n) + 1;

/** One HOME for every run: the shards' journals sit side by side in one state folder. */
function runner(sb: Sandbox) {
  const home = tempHome();
  const run = (args: string[], env: Record<string, string | undefined> = {}) => mcat(args, { sandboxDir: sb.dataDir, home, env: { JOB_COMPLETION_INDEX: undefined, ...env }, timeout: 60_000 });
  return { run, journals: join(home, '.local/state/mcat/journals') };
}

/** A sandbox, a runner on it, and a new file of edits (returned by its path). */
async function setup(name: string, edits: (sb: Sandbox) => unknown[]) {
  const sb = await sandbox();
  const file = join(mkdtempSync(join(tmpdir(), 'mcat-shard-')), name);
  writeFileSync(file, ndjson(edits(sb)));
  return { sb, file, ...runner(sb) };
}

async function exported(run: ReturnType<typeof runner>['run'], args: string[] = []): Promise<any[]> {
  const r = await run(['playlist', 'export', ...args]);
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout.trim() ? r.stdout.trim().split('\n').map((l) => JSON.parse(l)) : [];
}

describe('playlist apply --shard K/N', () => {
  it('four shards at once against one sandbox: every edit applied once, by one shard, each playlist as the file says', async () => {
    const sb = await sandbox();
    const { run, journals } = runner(sb);
    const t = sb.info.examples.trackIds;
    const d = mkdtempSync(join(tmpdir(), 'mcat-shard-'));

    // 20 more playlists to edit besides the 3 seeded ones
    const seed = join(d, 'seed.ndjson');
    writeFileSync(seed, ndjson(Array.from({ length: 20 }, (_, i) => ({ op: 'create', name: `seed-${i}` }))));
    const s = await run(['playlist', 'apply', seed]);
    expect(s.exitCode, s.stderr).toBe(0);
    const seedJournal = readdirSync(journals).find((n) => n.startsWith('seed.ndjson-') && n.endsWith('.journal'))!;
    const made = readFileSync(join(journals, seedJournal), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((r) => r.type === 'done');
    const targets: string[] = [...sb.info.examples.playlistIds, ...made.map((r) => r.playlistId)];
    expect(new Set(targets).size).toBe(23);

    // every target edited four times (order matters: the last edit wins), 50 creates, 3 groups
    // each set then added to twice; the streams interleaved so one playlist's edits are far apart
    const streams: any[][] = [];
    targets.forEach((id, i) =>
      streams.push(
        [0, 1, 2, 3].map((r) =>
          r % 2 ? { op: 'details', playlistId: id, description: `d-${i}-${r}`, visibility: r === 1 ? 'public' : 'private' } : { op: 'replace', playlistId: id, name: `p-${i}-${r}`, tracks: [{ trackId: t[(i + r) % t.length] }, { trackId: t[(i + r + 1) % t.length] }] },
        ),
      ),
    );
    streams.push(Array.from({ length: 50 }, (_, i) => ({ op: 'create', name: `made-${i}`, annotations: { n: String(i) }, tracks: [{ trackId: t[i % t.length] }] })));
    const groups = [0, 1, 2].map((g) => hexId(0x5a00 + g));
    groups.forEach((gid, g) =>
      streams.push([
        { op: 'group-replace', groupId: gid, name: `G${g}`, playlistIds: [targets[g]] },
        { op: 'group-add', groupId: gid, playlistIds: [targets[g + 5]] },
        { op: 'group-add', groupId: gid, playlistIds: [targets[g + 10], targets[g]] },
      ]),
    );
    const edits: any[] = [];
    while (streams.some((x) => x.length)) for (const x of streams) if (x.length) edits.push(x.shift());
    expect(edits).toHaveLength(23 * 4 + 50 + 9);
    const file = join(d, 'split.ndjson');
    writeFileSync(file, ndjson(edits));
    const expectedShard = (e: any, key: string) => shardOf(e.playlistId ?? e.groupId ?? key, 4);

    // --dry-run of one shard: only its edits, said on stderr and in the summary; nothing sent
    const dry = await run(['playlist', 'apply', file, '--shard', '2/4', '--dry-run', '-o', 'json']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    const plans = JSON.parse(dry.stdout);
    expect(plans.length).toBeGreaterThan(0);
    for (const p of plans) expect(expectedShard(edits[p.line - 1], p.key), `line ${p.line}`).toBe(2);
    expect(dry.stderr).toContain(`mcat: shard 2/4: ${plans.length} of ${edits.length} edits`);

    const runs = await Promise.all([1, 2, 3, 4].map((k) => run(['playlist', 'apply', file, '--shard', `${k}/4`, '--concurrency', '8'])));
    const counts = runs.map((r, i) => {
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
      const m = new RegExp(`mcat: shard ${i + 1}/4: (\\d+) of ${edits.length} edits\\n`).exec(r.stderr);
      expect(m, r.stderr).not.toBeNull();
      expect(r.stderr).toMatch(new RegExp(`shard ${i + 1}/4: ${m![1]} applied, 0 failed of ${m![1]} edits`));
      return Number(m![1]);
    });
    expect(counts.reduce((a, b) => a + b)).toBe(edits.length);
    expect(Math.min(...counts)).toBeGreaterThan(10);

    // each shard its own journal; their done records are disjoint and together the whole file
    const names = readdirSync(journals).filter((n) => n.startsWith('split.ndjson-') && n.endsWith('.journal'));
    expect(names.sort()).toEqual([1, 2, 3, 4].map((k) => expect.stringMatching(new RegExp(`^split\\.ndjson-[0-9a-f]{16}\\.shard-${k}-of-4\\.journal$`))));
    const byLine = new Map<number, number>();
    for (const n of names) {
      const k = Number(/shard-(\d)-of-4/.exec(n)![1]);
      const recs = readFileSync(join(journals, n), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(recs[0]).toMatchObject({ type: 'header', shard: `${k}/4`, total: counts[k - 1] });
      for (const r of recs.filter((x) => x.type === 'done')) {
        expect(byLine.has(r.line), `line ${r.line} done by shards ${byLine.get(r.line)} and ${k}`).toBe(false);
        byLine.set(r.line, k);
        expect(expectedShard(edits[r.line - 1], r.key), `line ${r.line}`).toBe(k);
      }
    }
    expect([...byLine.keys()].sort((a, b) => a - b)).toEqual(edits.map((_, i) => i + 1));

    // the sandbox's state: each create made once, each target holding its last edits, no marker left
    const all = await exported(run);
    expect(all).toHaveLength(23 + 50);
    for (let i = 0; i < 50; i++) {
      const got = all.filter((p) => p.name === `made-${i}`);
      expect(got, `made-${i}`).toHaveLength(1);
      expect(got[0].annotations).toEqual({ n: String(i) });
      expect(got[0].tracks.map((x: any) => x.trackId)).toEqual([String(t[i % t.length])]);
    }
    targets.forEach((id, i) => {
      const p = all.find((x) => x.playlistId === id);
      expect(p.name).toBe(`p-${i}-2`);
      expect(p.description).toBe(`d-${i}-3`);
      expect(p.visibility).toBe('private');
      expect(p.tracks.map((x: any) => x.trackId)).toEqual([String(t[(i + 2) % t.length]), String(t[(i + 3) % t.length])]);
    });
    for (const [g, gid] of groups.entries()) {
      const r = await run(['group', 'show', gid, '-o', 'json']);
      expect(r.exitCode, r.stderr).toBe(0);
      const pg = JSON.parse(r.stdout).playlistGroup;
      expect(pg.name).toBe(`G${g}`);
      expect(pg.playlists.map((p: any) => p.id)).toEqual([targets[g], targets[g + 5], targets[g + 10]]);
    }

    // export splits the same way: the four parts are disjoint and together every playlist
    const parts = await Promise.all([1, 2, 3, 4].map((k) => exported(run, ['--shard', `${k}/4`])));
    parts.forEach((part, i) => {
      for (const p of part) expect(shardOf(p.playlistId, 4)).toBe(i + 1);
    });
    expect(parts.flat().map((p) => p.playlistId).sort()).toEqual(all.map((p) => p.playlistId).sort());
  }, 60_000);

  it('--shard auto/N takes K from JOB_COMPLETION_INDEX (counted from 0)', async () => {
    const sb = await sandbox();
    const { run, journals } = runner(sb);
    const [p1, p2, p3] = sb.info.examples.playlistIds;
    const d = mkdtempSync(join(tmpdir(), 'mcat-shard-'));
    const file = join(d, 'auto.ndjson');
    const edits = [p1, p2, p3].map((id, i) => ({ op: 'details', playlistId: id, description: `auto ${i}` }));
    writeFileSync(file, ndjson(edits));
    const mine = edits.filter((e) => shardOf(e.playlistId, 2) === 2);
    const r = await run(['playlist', 'apply', file, '--shard', 'auto/2'], { JOB_COMPLETION_INDEX: '1' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`mcat: shard 2/2: ${mine.length} of 3 edits (JOB_COMPLETION_INDEX=1)`);
    expect(readdirSync(journals)).toContainEqual(expect.stringMatching(/\.shard-2-of-2\.journal$/));
    const all = await exported(run);
    for (const e of edits) expect(all.find((p) => p.playlistId === e.playlistId).description === e.description).toBe(mine.includes(e));

    // more shards than edits: a shard with none ends at once, exit 0
    const one = join(d, 'one.ndjson');
    writeFileSync(one, ndjson([edits[0]]));
    const empty = shardOf(p1, 2) === 1 ? '2/2' : '1/2';
    const e = await run(['playlist', 'apply', one, '--shard', empty]);
    expect(e.exitCode, e.stderr).toBe(0);
    expect(e.stderr).toContain(`mcat: shard ${empty}: 0 of 1 edit\n`);
    expect(e.stderr).toContain(`mcat: shard ${empty}: 0 applied, 0 failed of 0 edits`);
  }, 30_000);

  it('an unfinished run split another way blocks a run with another N (its edits would be applied twice), and resumes', async () => {
    // one shard of 1 holds everything: a missing playlist leaves that run unfinished (exit 3)
    const { run, journals, file } = await setup('resplit.ndjson', (sb) => [
      { op: 'create', name: 'once only' },
      { op: 'details', playlistId: hexId(0xbad), name: 'x' },
      { op: 'details', playlistId: sb.info.examples.playlistIds[0], name: 'y' },
    ]);
    const first = await run(['playlist', 'apply', file, '--shard', '1/1']);
    expect(first.exitCode, first.stderr).toBe(3);
    const journal = join(journals, readdirSync(journals).find((n) => n.endsWith('.shard-1-of-1.journal'))!);
    for (const args of [['--shard', '1/2'], ['--shard', '2/2', '--resume'], []]) {
      const r = await run(['playlist', 'apply', file, ...args]);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain(`mcat: an unfinished run of these edits split them another way (shard 1/1: ${journal}); running now could apply its edits twice\n`);
      expect(r.stderr).toContain(`hint: finish that run first (mcat playlist apply ${file} --shard 1/1 --resume), or remove its journal to abandon it\n`);
    }
    expect((await exported(run)).filter((p) => p.name === 'once only')).toHaveLength(1);
    const again = await run(['playlist', 'apply', file, '--shard', '1/1', '--resume']);
    expect(again.exitCode).toBe(3);
    expect(again.stderr).toMatch(/shard 1\/1: 0 applied, 2 already done, 1 failed of 3 edits/);
  }, 30_000);

  it('bad --shard values: one line, exit 2, nothing sent, no journal', async () => {
    const { run, journals, file } = await setup('bad.ndjson', (sb) => [
      { op: 'details', playlistId: sb.info.examples.playlistIds[0], name: 'must not happen' },
      { op: 'create', name: 'nor this' },
    ]);
    const before = await exported(run);
    const cases: [string, Record<string, string>, RegExp][] = [
      ['0/4', {}, /^mcat: --shard 0\/4: the shard must be 1 to 4, got 0\nhint: shards are counted from 1; to count from 0 as JOB_COMPLETION_INDEX does, use auto\/4\n$/],
      ['5/4', {}, /^mcat: --shard 5\/4: the shard must be 1 to 4, got 5\n$/],
      ['1/0', {}, /^mcat: --shard 1\/0: the number of shards must be 1 to 1024, got 0\n$/],
      ['1/1025', {}, /the number of shards must be 1 to 1024, got 1025/],
      ['2of4', {}, /^mcat: --shard must be K\/N \(shard K of N, counted from 1, e\.g\. 2\/4\) or auto\/N, got '2of4'\n$/],
      ['-1/4', {}, /--shard must be K\/N/],
      ['1.5/4', {}, /--shard must be K\/N/],
      ['auto/4', {}, /^mcat: --shard auto\/4 takes the shard from JOB_COMPLETION_INDEX, which is not set\nhint: /],
      ['auto/4', { JOB_COMPLETION_INDEX: '4' }, /^mcat: --shard auto\/4: JOB_COMPLETION_INDEX must be 0 to 3, got '4'\n/],
      ['auto/4', { JOB_COMPLETION_INDEX: 'x' }, /JOB_COMPLETION_INDEX must be 0 to 3, got 'x'/],
    ];
    for (const [value, env, msg] of cases) {
      const r = await run(['playlist', 'apply', file, '--shard', value], env);
      expect(r.exitCode, `${value}: ${r.stderr}`).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr, value).toMatch(msg);
    }
    const e = await run(['playlist', 'export', '--shard', '3/2']);
    expect(e.exitCode).toBe(2);
    expect(e.stdout).toBe('');
    expect(e.stderr).toMatch(/^mcat: --shard 3\/2: the shard must be 1 to 2, got 3\n$/);
    expect(existsSync(journals)).toBe(false);
    expect(await exported(run)).toEqual(before);
  }, 30_000);
});

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyEdits } from '../../../src/bulk/apply';
import { dryRunEdits, formatDryRun } from '../../../src/bulk/dryrun';
import { parseEdits } from '../../../src/bulk/edits';
import { exportLine, exportPlaylists } from '../../../src/bulk/export';
import { FakeApi } from './fake-api';
import { Unread } from '../../../src/client/paging';
import type { PlaylistApi } from '../../../src/client/playlist-api';

const hex = (n: number) => n.toString(16).padStart(24, '0');

async function exportText(api: FakeApi, userId: string, pageSize = 3): Promise<string> {
  const lines: string[] = [];
  for await (const e of exportPlaylists({ api, country: 'GB', userId, pageSize, concurrency: 3 })) lines.push(exportLine(e));
  return lines.map((l) => l + '\n').join('');
}

describe('exportPlaylists', () => {
  it('writes every playlist as a replace edit, fields in a stable order', async () => {
    const api = new FakeApi();
    api.seed('u1', {
      id: hex(1),
      name: 'One',
      status: 'published',
      visibility: 'public',
      description: 'desc',
      image: 'http://i/$size$',
      annotations: { k: 'v' },
      tracks: [{ trackId: '5', trackTitle: 'T', releaseId: 9 }, { trackId: '6' }],
    });
    const text = await exportText(api, 'u1');
    expect(text).toBe(
      `{"op":"replace","playlistId":"${hex(1)}","ifMissing":"create","name":"One","status":"published","visibility":"public","description":"desc","imageUrl":"http://i/$size$","annotations":{"k":"v"},"tracks":[{"trackId":"5","trackTitle":"T","releaseId":9},{"trackId":"6"}]}\n`,
    );
  });

  it('round-trips: export, apply into an empty user, export again gives the same playlists', async () => {
    const api = new FakeApi();
    for (let i = 0; i < 11; i++) {
      api.seed('u1', {
        id: hex(0x100 + i),
        name: `P${i}`,
        status: i % 2 ? 'published' : 'draft',
        visibility: i % 3 ? 'private' : 'public',
        description: i === 4 ? '' : `d${i} ✓ "quoted"`,
        image: i === 5 ? '' : `http://img/${i}`,
        annotations: i === 7 ? {} : { n: String(i), 'mcat:apply': i === 2 ? 'user value' : 'x' },
        tracks: Array.from({ length: i }, (_, k) => ({ trackId: String(1000 + k), ...(k % 2 ? { trackTitle: `t${k}`, artistAppearsAs: 'A' } : {}) })),
      });
    }
    api.seed('u2', { id: hex(0x999), name: 'not mine' });
    api.nextId = 0x5000;
    const backup = await exportText(api, 'u1');
    expect(backup.trim().split('\n')).toHaveLength(11);
    const parsed = parseEdits(Buffer.from(backup), { fileName: 'backup.ndjson' });
    expect(parsed.errors).toEqual([]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcat-export-'));
    try {
      // one at a time: creates in flight together are listed in the order they complete (each
      // waits for its marker's fdatasync), so only a sequential restore keeps the listing's order
      const res = await applyEdits({ api, edits: parsed.edits, country: 'GB', userId: 'u3', journalPath: path.join(dir, 'j'), concurrency: 1 });
      expect(res.failed).toEqual([]);
      expect(res.created).toHaveLength(11);
      const restored = await exportText(api, 'u3');
      const strip = (t: string) => t.replace(/"playlistId":"[0-9a-f]{24}"/g, '"playlistId":"-"');
      expect(strip(restored)).toBe(strip(backup));
      // applying the backup to its own user changes nothing and creates nothing
      const before = api.creates;
      const again = await applyEdits({ api, edits: parsed.edits, country: 'GB', userId: 'u1', journalPath: path.join(dir, 'j2') });
      expect(again.created).toEqual([]);
      expect(api.creates).toBe(before);
      expect(await exportText(api, 'u1')).toBe(backup);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('dryRunEdits', () => {
  it('plans every edit against the current state and sends nothing', async () => {
    const api = new FakeApi();
    const a = api.seed('u1', { id: hex(1), name: 'A', tracks: [{ trackId: '1' }, { trackId: '2' }] });
    const b = api.seed('u1', { id: hex(2), name: 'B' });
    const lines = [
      { op: 'replace', playlistId: a, tracks: [{ trackId: 2 }, { trackId: 3 }] },
      { op: 'details', playlistId: a, name: 'A2' },
      { op: 'details', playlistId: a, name: 'A2' },
      { op: 'details', playlistId: b, name: 'B' },
      { op: 'replace', playlistId: hex(9), ifMissing: 'create', name: 'R', tracks: [{ trackId: 1 }] },
      { op: 'replace', playlistId: hex(8), tracks: [] },
      { op: 'create', name: 'C' },
      { op: 'group-add', groupId: hex(7), playlistIds: [a] },
      { op: 'group-replace', groupId: hex(7), name: 'G', playlistIds: [] },
    ];
    const { edits } = parseEdits(lines.map((l) => JSON.stringify(l)).join('\n'), { fileName: 'x.ndjson' });
    const plans = await dryRunEdits({ api, edits, country: 'GB', userId: 'u1' });
    // the group hex(7) does not exist: adding to it would fail (the service says 2001)
    expect(plans.map((p) => p.action)).toEqual(['change', 'change', 'no-change', 'no-change', 'create', 'fail', 'create', 'fail', 'group']);
    expect(plans[0].diff).toMatchObject({ tracksAdded: [{ trackId: '3', position: 2 }], tracksRemoved: [{ trackId: '1', position: 1 }] });
    expect(plans[5].error).toMatchObject({ code: 2001 });
    expect(plans[7].lines.join('\n')).toMatch(/group .* not found/);
    expect(api.calls.every((c) => c.fn === 'getPlaylist' || c.fn === 'readGroup')).toBe(true);
    const text = formatDryRun(plans, 'x.ndjson');
    expect(text[0]).toBe(`x.ndjson:1: replace playlist ${a}`);
    expect(text.at(-1)).toMatch(/nothing was sent/);
  });

  it('a group-add is compared with the group as it is: one read per group, earlier edits of the file counted', async () => {
    const api = new FakeApi();
    const [a, b, c] = [1, 2, 3].map((i) => api.seed('u1', { id: hex(i), name: `P${i}` }));
    await api.replaceGroup(hex(7), { name: 'G', playlistIds: [a] }, { userId: 'u1', country: 'GB' });
    api.calls.length = 0;
    const lines = [
      { op: 'group-add', groupId: hex(7), playlistIds: [a] },
      { op: 'group-add', groupId: hex(7), playlistIds: [a, b] },
      { op: 'group-add', groupId: hex(7), playlistIds: [b] },
      { op: 'group-replace', groupId: hex(7), name: 'G', playlistIds: [c] },
      { op: 'group-add', groupId: hex(7), playlistIds: [a, c] },
    ];
    const { edits } = parseEdits(lines.map((l) => JSON.stringify(l)).join('\n'), { fileName: 'g.ndjson' });
    const plans = await dryRunEdits({ api, edits, country: 'GB', userId: 'u1' });
    expect(plans.map((p) => p.action)).toEqual(['no-change', 'group', 'no-change', 'group', 'group']);
    expect(plans[0].lines).toEqual([`already in group ${hex(7)}, unchanged: ${a}`]);
    expect(plans[1].lines).toEqual([`would add 1 playlist to group ${hex(7)}: ${b}`, `already in group ${hex(7)}, unchanged: ${a}`]);
    expect(plans[4].lines[0]).toBe(`would add 1 playlist to group ${hex(7)}: ${a}`);
    expect(api.calls.map((x) => x.fn)).toEqual(['readGroup']);
  });
});

describe('exportPlaylists: the playlists read ahead, bounded by bytes as well as by count', () => {
  /** An api whose playlists come unread, each `size(i)` bytes, after a tick; it counts those in flight and the reads. */
  function sizedApi(n: number, size: (i: number) => number) {
    const ids = Array.from({ length: n }, (_, i) => hex(i + 1));
    const seen = { open: 0, most: 0, reads: [] as string[] };
    const listing = () => ({ playlists: { page: 1, pageSize: 100, totalItems: n, playlist: ids.map((id) => ({ id, name: id })) } });
    const api = {
      listPlaylists: async () => listing(),
      listPlaylistsUnread: async () => new Unread(listing, 100),
      getPlaylist: async () => {
        throw new Error('not used: getPlaylistUnread is');
      },
      getPlaylistUnread: async (id: string) => {
        seen.open++;
        seen.most = Math.max(seen.most, seen.open);
        await new Promise((r) => setTimeout(r, 2));
        seen.open--;
        const i = ids.indexOf(id);
        return new Unread(() => {
          seen.reads.push(id);
          return { playlist: { id, name: `n${i}`, tracks: [] } };
        }, size(i));
      },
    } as unknown as PlaylistApi;
    return { api, ids, seen };
  }
  const MB = 1024 * 1024;
  const run = async (api: PlaylistApi, concurrency?: number) => {
    const out: string[] = [];
    for await (const e of exportPlaylists({ api, country: 'GB', concurrency, aheadBytes: 16 * MB })) out.push(e.playlistId);
    return out;
  };

  it('small playlists: up to --concurrency at once, in listing order, each read at its turn', async () => {
    const { api, ids, seen } = sizedApi(20, () => 2000);
    expect(await run(api, 4)).toEqual(ids);
    expect(seen.most).toBe(4);
    expect(seen.reads).toEqual(ids);
  });

  it('5 MB playlists: three at once (15 MB), whatever --concurrency', async () => {
    const { api, ids, seen } = sizedApi(12, () => 5 * MB);
    expect(await run(api, 8)).toEqual(ids);
    expect(seen.most).toBe(3);
  });

  it('playlists near the body cap: one at a time, the first alone before any size is known', async () => {
    const { api, ids, seen } = sizedApi(6, () => 60 * MB);
    expect(await run(api, 4)).toEqual(ids);
    expect(seen.most).toBe(1);
  });

  it('playlists that grow after a small first one: those already in flight arrive, once', async () => {
    // the limit of a bound by sizes seen (as paginate's): 4 went after the small first one
    const { api, ids, seen } = sizedApi(8, (i) => (i === 0 ? 1000 : 60 * MB));
    expect(await run(api, 4)).toEqual(ids);
    expect(seen.most).toBe(4);
  });
});

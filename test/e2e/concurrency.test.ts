// 20 mcat processes at once on the embedded sandbox (no server running: each process starts the
// sandbox in-process on the same data dir) each add playlists to one group; all must be there.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mcat, NEEDS_SQLITE_IN_CLI, sqliteInCli } from '../helpers/mcat';

const N = 20;
const dataDir = mkdtempSync(join(tmpdir(), 'mcat-embedded-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const run = (args: string[]) => mcat(args, { sandboxDir: dataDir, timeout: 60_000 });

// (under a Node the sandbox's SQLite module was not built for, skipped: see NEEDS_SQLITE_IN_CLI)
describe.skipIf(!sqliteInCli)(`20 processes on one embedded sandbox${sqliteInCli ? '' : ` (skipped: ${NEEDS_SQLITE_IN_CLI})`}`, () => {
  it('every playlist added by 20 concurrent `group add` processes is in the group, once', async () => {
    const info = JSON.parse((await run(['sandbox', 'info', '--json', '--data', dataDir])).stdout);
    const groupId: string = info.examples.groupId;

    const created = await Promise.all(
      Array.from({ length: N }, (_, i) => run(['playlist', 'create', '--name', `concurrent ${i}`, '-o', 'json'])),
    );
    const ids = created.map((r) => {
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/built-in sandbox/);
      return JSON.parse(r.stdout).playlist.id as string;
    });
    expect(new Set(ids).size).toBe(N);

    const shared = info.examples.playlistIds[0];
    const adds = await Promise.all(ids.map((id) => run(['group', 'add', groupId, '--playlist', id, '--playlist', shared, '-o', 'json'])));
    for (const r of adds) expect(r.exitCode, r.stderr).toBe(0);

    const shown = await run(['group', 'show', groupId, '-o', 'json']);
    expect(shown.exitCode, shown.stderr).toBe(0);
    const members: string[] = JSON.parse(shown.stdout).playlistGroup.playlists.map((p: { id: string }) => p.id);
    for (const id of ids) expect(members.filter((m) => m === id)).toHaveLength(1);
    expect(members.filter((m) => m === shared)).toHaveLength(1);
  }, 180_000);
});

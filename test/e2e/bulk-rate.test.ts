// One rate policy per process: against `--rate-limit 20/s`, a 100-edit apply paces itself from
// the X-RateLimit-* headers and finishes within 15 % of the ideal 5 s, with fewer than 5 % of
// its requests answered 429 (the sandbox's own count of what it answered, by status).
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { sandboxPerTest } from '../helpers/sandbox';
import { mcat } from '../helpers/mcat';

const sandbox = sandboxPerTest();

describe('rate limit', () => {
  it('100 replaces against --rate-limit 20/s: within 15 % of 5 s, < 5 % answered 429', async () => {
    const sb = await sandbox({ rateLimit: '20/s' });
    const ids = sb.info.examples.playlistIds;
    const tracks = sb.info.examples.trackIds;
    const file = join(mkdtempSync(join(tmpdir(), 'mcat-rate-')), 'edits.ndjson');
    const edits = Array.from({ length: 100 }, (_, i) => ({ op: 'replace', playlistId: ids[i % ids.length], name: `r${i}`, tracks: [{ trackId: String(tracks[i % tracks.length]) }] }));
    writeFileSync(file, edits.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const before = await counts(sb.dataDir);

    const r = await mcat(['playlist', 'apply', file], { sandboxDir: sb.dataDir, timeout: 30_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    // the run's own time, from its first request to its last answer (process start-up aside)
    const m = /100 applied, 0 failed of 100 edits in ([\d.]+) s/.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    const seconds = Number(m![1]);
    expect(seconds).toBeLessThanOrEqual(5 * 1.15);
    expect(seconds).toBeGreaterThanOrEqual(4); // the limit holds: 20 a second, no faster

    const after = await counts(sb.dataDir);
    const total = after.total - before.total;
    const limited = (after.byStatus['429'] ?? 0) - (before.byStatus['429'] ?? 0);
    expect(total).toBeGreaterThanOrEqual(100);
    expect(limited / total).toBeLessThan(0.05);
  }, 40_000);
});

async function counts(dataDir: string): Promise<{ total: number; byStatus: Record<string, number> }> {
  const r = await mcat(['sandbox', 'info', '--json', '--data', dataDir]);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout).requests;
}

// --all walks: once the first page gives the total, the next pages are fetched a few at a time
// and printed in order; Ctrl-C stops the walk with whole lines on stdout and exit 130.
import { describe, expect, it } from 'vitest';
import { mcat, spawnMcat } from '../helpers/mcat';
import { hostileEnv, hostilePerTest, json, releasesPage, type Behaviour } from '../helpers/hostile-server';

const hostile = hostilePerTest();
const RELEASES = '/1.2/artist/releases';

/** artist-release pages (50 a page, `total` in all), each answered after `holdMs`; counts pages in flight */
function slowPages(total: number, holdMs: number): { behaviour: Behaviour; maxInFlight: () => number } {
  let now = 0;
  let max = 0;
  const behaviour: Behaviour = async (req, res, url) => {
    const page = Number(url.searchParams.get('page') ?? 1);
    const size = Number(url.searchParams.get('pageSize') ?? 50);
    now++;
    max = Math.max(max, now);
    // later pages answer sooner: the order on stdout must come from mcat, not the network
    await new Promise((r) => setTimeout(r, holdMs + ((7 * page) % 5) * 10));
    now--;
    const n = Math.max(0, Math.min(size, total - (page - 1) * size));
    json(releasesPage({ page, pageSize: size, totalItems: total, firstId: (page - 1) * size + 1, n }))(req, res, url);
  };
  return { behaviour, maxInFlight: () => max };
}

describe('--all fetches pages concurrently once the total is known', () => {
  it('artist releases --all: 10 pages, 4 in flight at most, printed in order', async () => {
    const s = await hostile();
    const pages = slowPages(500, 60);
    s.on(RELEASES, pages.behaviour);
    const r = await mcat(['artist', 'releases', '1', '--all', '-o', 'ndjson'], { env: hostileEnv(s), timeout: 20_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const ids = r.stdout.trim().split('\n').map((l) => JSON.parse(l).id);
    expect(ids).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
    expect(s.count(RELEASES)).toBe(10);
    expect(pages.maxInFlight()).toBe(4);
  });

  /** starts a slow --all walk in `format`, sends Ctrl-C after three pages were asked for: the run, once the walk stopped */
  async function interrupted(format: string) {
    const s = await hostile();
    s.on(RELEASES, slowPages(50_000, 150).behaviour);
    const child = spawnMcat(['artist', 'releases', '1', '--all', '-o', format], { env: hostileEnv(s), timeout: 20_000 });
    await s.waitFor(RELEASES, 3);
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode).toBe(130);
    expect(String(r.stderr).trim()).toBe('mcat: interrupted: the listing was stopped before its last page');
    // nothing is asked for after the interrupt
    const asked = s.count(RELEASES);
    await new Promise((res) => setTimeout(res, 300));
    expect(s.count(RELEASES)).toBe(asked);
    expect(asked).toBeLessThan(12);
    return r;
  }

  it('Ctrl-C stops the walk: whole lines on stdout, one line on stderr, exit 130', async () => {
    const out = String((await interrupted('ndjson')).stdout);
    expect(out === '' || out.endsWith('\n')).toBe(true);
    for (const line of out.split('\n').filter(Boolean)) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('-o xml: Ctrl-C stops the walk the same way (no page asked for after it, exit 130)', async () => {
    await interrupted('xml');
  });
});

describe('Ctrl-C in a command that walks no pages (a batch)', () => {
  it('exits 130 with one line, and stdout holds whole lines: nothing is written after it', async () => {
    const s = await hostile();
    let calls = 0;
    s.on('/1.2/release/details/batch', (_req, res, url) => {
      const ids = (url.searchParams.get('releaseIds') ?? '').split(',').map(Number);
      // the first call at once, the others slowly: the run is mid-way when Ctrl-C comes
      setTimeout(() => json({ status: 'ok', version: '1.2', items: { releases: ids.map((id) => ({ id, title: `Release ${id}`, artist: { id: 1, name: 'The Testers' } })), errors: [] } })(_req, res, url), calls++ === 0 ? 0 : 3000);
    });
    const ids = Array.from({ length: 2000 }, (_, i) => String(i + 1));
    const child = spawnMcat(['release', 'batch', ...ids, '-o', 'ndjson', '--concurrency', '1'], { env: hostileEnv(s), timeout: 20_000 });
    await s.waitFor('/1.2/release/details/batch', 2);
    await new Promise((res) => setTimeout(res, 200));
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode).toBe(130);
    expect(String(r.stderr).trim()).toBe('mcat: interrupted');
    const out = String(r.stdout);
    expect(out.endsWith('\n')).toBe(true);
    const lines = out.split('\n').filter(Boolean);
    expect(lines).toHaveLength(500);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });
});

// The sandbox counts the requests it answered since it started, by status, so that anyone testing
// a client can see how many 429s (or 5xx) it drew: /__sandbox/info and `mcat sandbox info`.
import { afterAll, describe, expect, it } from 'vitest';
import { startTestSandbox } from '../helpers/sandbox';
import { mcat } from '../helpers/mcat';
import { call, urlOf } from './signer';

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of open) await s.close();
});

describe('requests answered, by status', () => {
  it('/__sandbox/info and mcat sandbox info (--json and text) count 200s and 429s', async () => {
    const sb = await startTestSandbox({ rateLimit: '2/min' });
    open.push(sb);
    const key = sb.info.consumers.find((x) => x.countries.length > 1)!.key;
    const batch = () => call('GET', urlOf(sb.baseUrl, '/1.2/release/details/batch', { releaseIds: sb.info.examples.releaseIds[0], country: 'GB', usageTypes: 'download' }), { keyOnly: key });
    const live = async () => ((await fetch(`${sb.baseUrl}/__sandbox/info`).then((r) => r.json())) as { requests: unknown }).requests;
    expect(await live()).toEqual({ total: 0, byStatus: {} });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await batch()).status);
    expect(statuses).toEqual([200, 200, 429]);

    // the control route itself counts once it has answered: 2 x 200 and 1 x 429 so far, plus the info read above
    expect(await live()).toEqual({ total: 4, byStatus: { '200': 3, '429': 1 } });

    const j = await mcat(['sandbox', 'info', '--json', '--data', sb.dataDir]);
    expect(j.exitCode, j.stderr).toBe(0);
    const requests = JSON.parse(j.stdout).requests;
    expect(requests.byStatus['429']).toBe(1);
    expect(requests.total).toBe(requests.byStatus['200'] + 1);
    const t = await mcat(['sandbox', 'info', '--data', sb.dataDir]);
    expect(t.stdout).toMatch(/^requests {5}\d+ answered \(200: \d+, 429: 1\)$/m);
  });
});

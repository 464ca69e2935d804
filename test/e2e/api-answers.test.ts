// `mcat api` prints a refused answer's body as received, and says what it was on stderr in the
// one line every other command uses: the API code and the HTTP status (1002, 1003, 2002 in JSON
// and XML, the service's OAuth refusal, the media endpoint's HTML page), exit 4 for 401 and 403,
// 1 for the rest.
import { describe, expect, it } from 'vitest';
import { sandboxForFile } from '../helpers/file-sandbox';

const file = sandboxForFile();
// -q: the sandbox label is not said, errors still are
const run = (args: string[]) => file.run(['-q', ...args]);

describe('mcat api: a refused answer is said with its code', () => {
  it('an API error in JSON or XML: the message, the code and the status; the body on stdout', async () => {
    for (const xml of [false, true]) {
      const r = await run(['api', 'GET', '/1.2/release/details/batch', '-f', 'releaseIds=1,abc', '-f', 'usageTypes=download', ...(xml ? ['--xml'] : [])]);
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stdout).toContain(xml ? '<error code="1002">' : '"code":1002');
      expect(r.stderr.trim()).toMatch(/^mcat: Invalid value for releaseIds[^\n]* \(1002, HTTP 400\)$/);
    }
    const page = await run(['api', 'GET', '/1.2/user/playlists', '-f', 'pageSize=501']);
    expect([page.exitCode, page.stderr.trim()]).toEqual([1, expect.stringMatching(/^mcat: [^\n]*out of range[^\n]* \(1003, HTTP 400\)$/)]);
  });

  it('a country the key is not entitled to: 2002, HTTP 403, exit 4', async () => {
    const r = await run(['api', 'GET', '/1.2/release/details/batch', '-f', 'releaseIds=100001', '-f', 'usageTypes=download', '-f', 'country=JP']);
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr.trim()).toMatch(/^mcat: [^\n]*country JP \(2002, HTTP 403\)$/);
  });

  it("the service's OAuth refusal: its reason, HTTP 401, exit 4, one hint", async () => {
    const r = await run(['api', 'GET', '/1.2/user/locker', '--consumer-only']);
    expect(r.exitCode).toBe(4);
    expect(r.stdout.trim()).toBe('OAuth authentication error: Not authorised - no user credentials provided');
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toBe('mcat: authentication failed: Not authorised - no user credentials provided (HTTP 401)');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^hint: /);
  });

  it("another user's data (a userId parameter, in the path's query or a field): the line and hint name that user", async () => {
    const group = file.sb.info.examples.groupId;
    for (const args of [['api', 'GET', `/1.2/user/playlists/groups/${group}?userId=10002`], ['api', 'GET', '/1.2/user/playlists', '-f', 'userId=10002']]) {
      const r = await run(args);
      expect(r.exitCode, r.stderr).toBe(4);
      const lines = r.stderr.trim().split('\n');
      expect(lines[0]).toBe("mcat: the token in use (from the sandbox) is user 10001's, not user 10002's: the credentials are fine, the data is another user's (HTTP 401)");
      expect(lines[1]).toMatch(/^hint: for user 10002's data use their token: a profile per customer \('mcat auth login --profile cust-10002 --user-id 10002 …'\)/);
      // (mcat api has no --user-token-from-stdin: the hint offers what it takes)
      expect(lines[1]).toContain('or MCAT_TOKEN and MCAT_TOKEN_SECRET');
      expect(lines[1]).not.toContain('--user-token-from-stdin');
    }
  });

  it('a request with its own country (or none) needs no country of the profile; a name repeated in the path is sent repeated', async () => {
    const sb = file.sb;
    const consumer = sb.info.consumers.find((c) => c.countries.length > 1)!;
    // credentials, and no country anywhere
    const env = { MCAT_BASE_URL: sb.baseUrl, MCAT_CONSUMER_KEY: consumer.key, MCAT_CONSUMER_SECRET: consumer.secret, MCAT_COUNTRY: '' };
    const own = await file.run(['-q', 'api', 'GET', '/1.2/release/tracks', '-f', `releaseId=${sb.info.examples.releaseIds[0]}`, '-f', 'country=GB', '-f', 'pageSize=1'], { env });
    expect(own.exitCode, own.stderr).toBe(0);
    expect(JSON.parse(own.stdout).tracks.tracks).toHaveLength(1);
    const none = await file.run(['-q', 'api', 'GET', '/1.2/release/tracks', '-f', `releaseId=${sb.info.examples.releaseIds[0]}`, '--no-auto-country'], { env });
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toMatch(/Missing required parameter country[^\n]*\(1001, HTTP 400\)/);
    const auto = await file.run(['-q', 'api', 'GET', '/1.2/release/tracks', '-f', `releaseId=${sb.info.examples.releaseIds[0]}`], { env });
    expect(auto.exitCode).toBe(2);
    expect(auto.stderr).toMatch(/^mcat: no country/);
    // both values signed and sent: the service sees the repeat (and refuses it), not a bad signature
    const twice = await file.run(['-q', 'api', 'GET', `/1.2/release/tracks?releaseId=${sb.info.examples.releaseIds[0]}&pageSize=1&pageSize=2&country=GB`], { env });
    expect(twice.exitCode).toBe(1);
    expect(twice.stderr).toMatch(/pageSize: given more than once[^\n]*\(1002, HTTP 400\)/);
  });

  it("the media endpoint's HTML page: its title and the status", async () => {
    const zero = await zeroTrack();
    expect(zero).toBeDefined();
    const r = await run(['api', 'GET', `/media/download/${zero}`]);
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toMatch(/<html/);
    expect(r.stderr.trim()).toMatch(/^mcat: [^\n]*No downloads left for this track \(HTTP 403\)$/);
  });
});

/** A track of the locker user's with no downloads left (the sandbox seeds one). */
async function zeroTrack(): Promise<number | undefined> {
  for (let page = 1; page < 10; page++) {
    const r = await run(['api', 'GET', '/1.2/user/locker', '-f', 'pageSize=50', '-f', `page=${page}`, '--jq', '[.locker.lockerReleases.lockerRelease[] | select(.available) | .lockerTracks.lockerTrack[] | select(.remainingDownloads == 0) | .track.id][0]']);
    const id = r.stdout.trim();
    if (id && id !== 'null') return Number(id);
  }
  return undefined;
}

// The pure parts of the support commands (summary, find, check), the error lines that answer
// "whose data" and say nothing twice, the "did you mean", and the local record of downloads.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError, AuthError, NetworkError, TimeoutError } from '../../../src/client/errors';
import { downloadLogPath, ranOutAt, recordDownload } from '../../../src/cli/download-log';
import { formatError, noteUserScope, withMeaning } from '../../../src/cli/errors';
import { beginRun, endRun, type CliContext } from '../../../src/cli/lifecycle';
import { suggestWord } from '../../../src/cli/suggest';
import { addToSummary, emptySummary } from '../../../src/cli/views/locker';
import { checkVerdict, fold, lockerMatcher, summaryDoc } from '../../../src/cli/views/locker-support';


const track = (id: number, title: string, o: Record<string, unknown> = {}) => ({
  track: { id, title, version: '', artist: { id: 7, name: 'Zoë Ålund' }, isrc: `GBABC24${String(id).padStart(5, '0')}` },
  remainingDownloads: 2,
  purchaseDate: '2024-03-01T10:00:00Z',
  downloadUrls: { downloadUrl: [{ url: 'u', format: { id: 17, description: 'MP3 320' } }] },
  ...o,
});
const release = (id: number, title: string, tracks: any[], available = true) => ({
  release: { id, title, version: '', artist: { id: 8, name: 'The Velvet Echoes' } },
  lockerTracks: { lockerTrack: tracks },
  available,
});

describe('locker summary', () => {
  it('adds pages up: unavailable releases, tracks with none left, downloads remaining, first and last purchase', () => {
    const s = emptySummary();
    addToSummary(s, [release(1, 'A', [track(11, 'a'), track(12, 'b', { remainingDownloads: 0, purchaseDate: '2023-01-02T00:00:00+01:00' })])]);
    addToSummary(s, [release(2, 'B', [{ ...track(21, 'c'), remainingDownloads: undefined, purchaseDate: '2025-05-05T05:05:05Z' }], false)]);
    expect(summaryDoc(s, '10001')).toEqual({
      userId: '10001',
      releases: 2,
      unavailableReleases: 1,
      tracks: 3,
      tracksWithNoDownloadsLeft: 1,
      downloadsRemaining: 2,
      firstPurchase: '2023-01-02T00:00:00+01:00',
      lastPurchase: '2025-05-05T05:05:05Z',
    });
  });
});

describe('locker find', () => {
  it('folds case and accents', () => {
    expect(fold('Café ÅLUND Œuvre Straße')).toBe('cafe alund oeuvre strasse');
  });

  it('a release that matches is kept whole; otherwise only its tracks that match; ISRCs with or without dashes', () => {
    const lr = release(1, 'Électric Rivers', [track(11, 'Summer Night'), track(12, 'Winter')]);
    expect(lockerMatcher('electric')(lr)).toBe(lr);
    expect(lockerMatcher('VELVET echoes')(lr)).toBe(lr);
    const t = lockerMatcher('SÚMMER')(lr);
    expect(t!.lockerTracks!.lockerTrack.map((x: any) => x.track.id)).toEqual([11]);
    expect(lockerMatcher('zoe alund')(lr)!.lockerTracks!.lockerTrack).toHaveLength(2);
    expect(lockerMatcher('gb-abc-24-00012')(lr)!.lockerTracks!.lockerTrack.map((x: any) => x.track.id)).toEqual([12]);
    expect(lockerMatcher('nothing like it')(lr)).toBeUndefined();
  });
});

describe('locker check', () => {
  const base = { trackId: 11, userId: '10001', country: 'GB' };
  it('downloadable: exit-0 verdict with downloads left and formats', () => {
    const v = checkVerdict({ ...base, hit: { lr: release(1, 'A', [track(11, 'a')]), lt: track(11, 'a') } });
    expect(v).toMatchObject({ canDownload: true, canStream: true, reason: null, remainingDownloads: 2, formats: ['MP3 320'] });
  });
  it('each reason it cannot be', () => {
    const gone = release(1, 'A', [track(11, 'a')], false);
    expect(checkVerdict({ ...base, hit: { lr: gone, lt: gone.lockerTracks.lockerTrack[0] } })).toMatchObject({ canDownload: false, canStream: false, reason: 'release-unavailable' });
    const none = track(11, 'a', { remainingDownloads: 0 });
    const noneLeft = checkVerdict({ ...base, hit: { lr: release(1, 'A', [none]), lt: none } });
    expect(noneLeft).toMatchObject({ canDownload: false, canStream: true, reason: 'no-downloads-left', noDownloadsLeftSince: null });
    expect(noneLeft.message).toMatch(/since when is not known/);
    const since = checkVerdict({ ...base, hit: { lr: release(1, 'A', [none]), lt: none }, noDownloadsLeftSince: '2025-02-03T04:05:06Z' });
    // in local time, as the tables show it
    const tz = process.env.TZ;
    try {
      process.env.TZ = 'UTC';
      expect(verdictMessage()).toBe('no downloads left (since 2025-02-03 04:05, when mcat on this machine used the last one)');
      process.env.TZ = 'Asia/Tokyo';
      expect(verdictMessage()).toBe('no downloads left (since 2025-02-03 13:05, when mcat on this machine used the last one)');
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
    function verdictMessage() {
      return checkVerdict({ ...base, hit: { lr: release(1, 'A', [none]), lt: none }, noDownloadsLeftSince: '2025-02-03T04:05:06Z' }).message;
    }
    expect(since.message).toMatch(/^no downloads left \(since 2025-02-0[23] \d\d:05, when/);
    expect(checkVerdict({ ...base, searched: 14 })).toMatchObject({ reason: 'not-in-locker', message: "not in user 10001's locker (14 releases searched)" });
    expect(checkVerdict({ ...base, countryRefused: 'not entitled (2002)' })).toMatchObject({ reason: 'country-not-entitled', canDownload: false });
  });
});

describe('error lines', () => {
  it('the service message and the code meaning, nothing said twice', () => {
    expect(withMeaning('Track not found', 'not found, or owned by a label not licensed for this partner')).toBe('Track not found, or owned by a label not licensed for this partner');
    expect(withMeaning('Resource not available in current context: x', 'resource not available in current context (country not entitled)')).toBe('Resource not available in current context: x');
    expect(withMeaning('Invalid value for sort', 'a parameter has an invalid value')).toBe('Invalid value for sort');
    // the real service's wordings (test/fixtures/real-api): said once
    expect(withMeaning('Value of parameter userId is not valid: invalid', 'a parameter has an invalid value')).toBe('Value of parameter userId is not valid: invalid');
    expect(withMeaning('No releases found with id: missing', 'not found, or owned by a label not licensed for this partner')).toBe('No releases found with id: missing, or owned by a label not licensed for this partner');
    expect(withMeaning('Missing required parameter userId', 'a required parameter is missing')).toBe('Missing required parameter userId');
    // a message that says something else keeps the meaning beside it
    expect(withMeaning('Sort must be one of a, b', 'a parameter has an invalid value')).toBe('Sort must be one of a, b: a parameter has an invalid value');
    expect(formatError(new ApiError(2001, 'Track not found', 404))).toBe('mcat: Track not found, or owned by a label not licensed for this partner (2001, HTTP 404)');
  });

  it('a refused connection is not slow: no --timeout hint; a timeout gets one', () => {
    expect(formatError(new NetworkError('connection refused by 127.0.0.1:9', 'ECONNREFUSED'))).toBe(
      'mcat: connection refused by 127.0.0.1:9\nhint: is the server running? check the base URL (mcat auth status)',
    );
    expect(formatError(new TimeoutError(50, 'headers'))).toMatch(/hint: .*raise --timeout/);
  });

  it("access denied with a --user: whose token it is, that the credentials are fine, how to see the other user's data", () => {
    // whose token it is is noted during a run, for that run only
    beginRun({ env: {} } as unknown as CliContext);
    let text: string;
    try {
      noteUserScope({ tokenUser: '10001', tokenFrom: "profile 'work'", requestedUser: '10002' });
      text = formatError(new AuthError('access to resource denied', 401));
    } finally {
      endRun();
    }
    // the next run starts knowing nothing of it
    expect(formatError(new AuthError('access to resource denied', 401))).not.toMatch(/10001/);
    expect(text).toBe(
      "mcat: the token in use (from profile 'work') is user 10001's, not user 10002's: the credentials are fine, the data is another user's (HTTP 401)\n" +
        "hint: for user 10002's data use their token: a profile per customer ('mcat auth login --profile cust-10002 --user-id 10002 …') or --user-token-from-stdin",
    );
    // any other refusal keeps its own words
    expect(formatError(new AuthError('invalid signature', 401))).toMatch(/^mcat: authentication failed: invalid signature/);
  });

  it('did you mean', () => {
    expect(suggestWord('downlaod', ['summary', 'find', 'check', 'download', 'stream-check'])).toBe('download');
    expect(suggestWord('sumary', ['summary', 'find'])).toBe('summary');
    expect(suggestWord('xyz', ['summary', 'find'])).toBeUndefined();
  });
});

describe('the local record of downloads', () => {
  const env = () => ({ XDG_STATE_HOME: mkdtempSync(join(tmpdir(), 'mcat-state-')) }) as NodeJS.ProcessEnv;

  it('0600 in a 0700 folder; says when the last download of a track was used, per account', () => {
    const e = env();
    expect(recordDownload({ at: '2025-01-01T00:00:00Z', account: 'a1', trackId: 5, left: 1 }, e)).toBe(true);
    recordDownload({ at: '2025-01-02T00:00:00Z', account: 'a1', trackId: 5, left: 0 }, e);
    recordDownload({ at: '2025-01-03T00:00:00Z', account: 'a2', trackId: 5, left: 0 }, e);
    expect(ranOutAt('a1', 5, e)).toBe('2025-01-02T00:00:00Z');
    expect(ranOutAt('a1', 6, e)).toBeUndefined();
    const file = downloadLogPath(e);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);
    expect(readFileSync(file, 'utf8').split('\n').filter(Boolean)).toHaveLength(3);
  });

  it('neither written nor read through a symlink, nor in a folder others can write', () => {
    const e = env();
    const dir = join(e.XDG_STATE_HOME!, 'mcat');
    mkdirSync(dir, { mode: 0o700 });
    const elsewhere = join(e.XDG_STATE_HOME!, 'elsewhere.ndjson');
    writeFileSync(elsewhere, JSON.stringify({ at: 'x', account: 'a', trackId: 1, left: 0 }) + '\n', { mode: 0o600 });
    symlinkSync(elsewhere, join(dir, 'downloads.ndjson'));
    expect(recordDownload({ at: 'y', account: 'a', trackId: 1, left: 0 }, e)).toBe(false);
    expect(ranOutAt('a', 1, e)).toBeUndefined();
    expect(readFileSync(elsewhere, 'utf8').split('\n').filter(Boolean)).toHaveLength(1);

    const open = env();
    mkdirSync(join(open.XDG_STATE_HOME!, 'mcat'));
    chmodSync(join(open.XDG_STATE_HOME!, 'mcat'), 0o777);
    expect(recordDownload({ at: 'y', account: 'a', trackId: 1, left: 0 }, open)).toBe(false);
  });
});

// The flows of a support agent, each in a pseudo-terminal 80 columns wide (util-linux `script`)
// against a sandbox, the big locker included: locker summary, find, check, download (downloads
// left, --dry-run, its own options), whose data, credentials checked at login, demo playlists'
// metadata, group adds in a dry run, and error lines that say things once.
import { execa } from 'execa';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath, hasCommand, mcatEnv, tempHome } from '../helpers/mcat';
import { mcatIn as mcat } from '../helpers/mcat-in';
import { startTestSandbox } from '../helpers/sandbox';


type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;
let sb: Sandbox;
let work: string;
let home: string;
let releases: any[];

const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;
const plain = (s: string) => s.replace(ANSI, '');
/** The widest line of data (tables, sheets): messages on stderr are one line each, however long. */
const widest = (s: string) =>
  Math.max(0, ...plain(s).split(/\r|\n/).filter((l) => !/^(mcat|hint): /.test(l)).map((l) => [...l].length));

/**
 * A shell line run on a pseudo-terminal of 80 columns (stdin, stdout and stderr), with mcat on PATH;
 * its tables, sheets and plans must fit (`fits: false` for a help's line of global options).
 */
async function pty(
  line: string,
  env: Record<string, string | undefined> = {},
  { timeout = 60_000, fits = true }: { timeout?: number; fits?: boolean } = {},
): Promise<{ out: string; code: number }> {
  const r = await execa('script', ['-qec', `stty cols 80 rows 50 2>/dev/null; ${line}`, '/dev/null'], {
    env: { ...(mcatEnv({ sandboxDir: sb.dataDir, home, env }) as Record<string, string>), TERM: 'xterm-256color', PATH: `${join(work, '.bin')}:${process.env.PATH}` },
    extendEnv: true,
    reject: false,
    timeout,
    stdin: 'ignore',
    cwd: work,
  });
  const out = String(r.stdout).replace(/\r\n/g, '\n');
  if (fits) expect(widest(out), out).toBeLessThanOrEqual(80);
  return { out, code: r.exitCode ?? -1 };
}

const run = (args: string[], opts: Parameters<typeof mcat>[1] = {}) => mcat(args, { sandboxDir: sb.dataDir, home, cwd: work, ...opts });
const user = (id: string) => sb.info.users.find((u) => u.userId === id)!;
const tracksOf = (lr: any): any[] => lr.lockerTracks.lockerTrack;

beforeAll(async () => {
  sb = await startTestSandbox();
  work = mkdtempSync(join(tmpdir(), 'mcat-support-'));
  home = tempHome();
  mkdirSync(join(work, '.bin'));
  writeFileSync(join(work, '.bin', 'mcat'), `#!/bin/sh\nexec '${process.execPath}' '${binPath}' "$@"\n`);
  chmodSync(join(work, '.bin', 'mcat'), 0o755);
  const r = await run(['locker', '--all', '-o', 'json']);
  releases = JSON.parse(r.stdout).locker.lockerReleases.lockerRelease;
});
afterAll(async () => {
  await sb?.close();
});

describe.skipIf(!hasCommand('script'))('support flows in a terminal 80 columns wide', () => {
  it('locker summary of the big locker (22,000 releases): read in pages several at a time, progress on the terminal, a short sheet', { timeout: 180_000 }, async () => {
    const big = user(sb.info.examples.bigLockerUser);
    // Tokyo: the sheet's moments in local time, as the tables show them (12:00 UTC is 21:00 there)
    const { out, code } = await pty('mcat locker summary', { MCAT_TOKEN: big.token, MCAT_TOKEN_SECRET: big.tokenSecret, TZ: 'Asia/Tokyo' }, { timeout: 170_000 });
    expect(code, out).toBe(0);
    const text = plain(out);
    expect(text).toMatch(/reading the locker: [\d,]+ of 22,000 releases/);
    expect(text).toMatch(/Locker of +user 10002 · sandbox · token from MCAT_TOKEN/);
    expect(text).toMatch(/\nReleases +22,000\n +no longer available +[1-9][\d,]*\n/);
    expect(text).toMatch(/\nTracks +[\d,]{6,}\n +no downloads left +\d+\n/);
    expect(text).toMatch(/\nDownloads remaining +[\d,]+ in all\n/);
    expect(text).toMatch(/\nFirst purchase +20\d\d-\d\d-\d\d \d\d:\d\d\nLast purchase +2024-06-01 21:00$/);
  });

  it('locker summary -o json agrees with the whole listing; no progress through a pipe', async () => {
    const r = await run(['locker', 'summary', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/reading the locker/);
    const all = releases.flatMap((lr) => tracksOf(lr).map((lt) => ({ lr, lt })));
    const dates = all.map((x) => x.lt.purchaseDate).sort();
    expect(JSON.parse(r.stdout)).toEqual({
      userId: '10001',
      releases: releases.length,
      unavailableReleases: releases.filter((lr) => lr.available === false).length,
      tracks: all.length,
      tracksWithNoDownloadsLeft: all.filter((x) => x.lr.available !== false && x.lt.remainingDownloads === 0).length,
      downloadsRemaining: all.reduce((n, x) => n + (x.lr.available !== false ? x.lt.remainingDownloads : 0), 0),
      firstPurchase: dates[0],
      lastPurchase: dates.at(-1),
    });
  });

  it('summary, check and find feed scripts: --jq and --json as the listings do; --quiet leaves stderr empty', async () => {
    let r = await run(['locker', 'summary', '--jq', '.releases', '--quiet']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${releases.length}\n`);
    expect(r.stderr).toBe('');
    const ok = releases.flatMap((lr) => (lr.available === false ? [] : tracksOf(lr))).find((lt) => lt.remainingDownloads > 0);
    r = await run(['locker', 'check', String(ok.track.id), '--jq', '[.canDownload, .remainingDownloads] | @tsv']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`true\t${ok.remainingDownloads}\n`);
    r = await run(['locker', 'find', releases[0].release.title, '--json', 'release.id,fullTitle']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toContainEqual({ release: { id: releases[0].release.id }, fullTitle: expect.stringContaining(releases[0].release.title) });
    r = await run(['locker', 'download', String(ok.track.id), '--dry-run', '--jq', '.']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^mcat: --jq: 'mcat locker download' prints no JSON/m);
  });

  it('locker find: any case, any accents, ISRC with dashes; the whole locker', async () => {
    const { out, code } = await pty("mcat locker find 'SÚMMER' --no-color");
    expect(code, out).toBe(0);
    const titles = releases.flatMap((lr) => tracksOf(lr).filter((lt) => /summer/i.test(lt.track.title)).map((lt) => lt.track.id));
    expect(titles.length).toBeGreaterThan(0);
    for (const id of titles) expect(out).toContain(String(id));

    const first = tracksOf(releases[0])[0].track;
    const dashed = `${first.isrc.slice(0, 2)}-${first.isrc.slice(2, 5)}-${first.isrc.slice(5, 7)}-${first.isrc.slice(7)}`;
    const r = await run(['locker', 'find', dashed.toLowerCase(), '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const found = JSON.parse(r.stdout).locker.lockerReleases.lockerRelease;
    expect(found.flatMap((lr: any) => tracksOf(lr).map((lt: any) => lt.track.id))).toEqual([first.id]);

    const none = await pty("mcat locker find 'no such text at all'");
    expect(none.code).toBe(0);
    expect(plain(none.out)).toMatch(/nothing in user 10001's locker matches "no such text at all" \(\d+ releases searched\)/);
    const empty = await pty("mcat locker find '  '");
    expect(empty.code).toBe(2);
  });

  it('locker check: 0 when a download would succeed, 3 with the reason when not (reads only)', async () => {
    const ok = tracksOf(releases[0])[0];
    const gone = releases.find((lr) => lr.available === false);
    const noneLeft = releases.flatMap((lr) => (lr.available === false ? [] : tracksOf(lr))).find((lt) => lt.remainingDownloads === 0);

    let r = await pty(`mcat locker check ${ok.track.id} --no-color`);
    expect(r.code, r.out).toBe(0);
    expect(plain(r.out)).toMatch(new RegExp(`Download +yes · ${ok.remainingDownloads} left · MP3 320`));
    expect(plain(r.out)).toMatch(/Stream +yes/);

    r = await pty(`mcat locker check ${tracksOf(gone)[0].track.id}`);
    expect(r.code).toBe(3);
    expect(plain(r.out)).toMatch(/cannot be downloaded: release \d+ is no longer available/);

    r = await pty(`mcat locker check ${noneLeft.track.id}`);
    expect(r.code).toBe(3);
    expect(plain(r.out)).toMatch(/no downloads left \(since when is not known: the service does not say\)/);
    expect(plain(r.out)).toMatch(/hint: streaming stays possible: mcat locker stream-check/);

    r = await pty('mcat locker check 99999901');
    expect(r.code).toBe(3);
    expect(plain(r.out)).toMatch(/not in user 10001's locker \(\d+ releases searched\)/);

    // a country the key is not entitled to: an entitlement failure (CONVENTIONS.md: exit 4), the verdict still shown
    r = await pty(`mcat --country JP locker check ${ok.track.id}`);
    expect(r.code).toBe(4);
    expect(plain(r.out)).toMatch(/country JP is not entitled/);

    // nothing was used up by any of it
    const after = JSON.parse((await run(['locker', 'check', String(ok.track.id), '-o', 'json'])).stdout);
    expect(after.remainingDownloads).toBe(ok.remainingDownloads);

    // the big locker, with the customer's token on stdin: found on the first pages, the rest not read
    const big = user(sb.info.examples.bigLockerUser);
    r = await pty(`printf '%s\\n' ${big.token} ${big.tokenSecret} | mcat locker check ${ok.track.id} --user-token-from-stdin --no-color`);
    expect(r.code, r.out).toBe(0);
    expect(plain(r.out)).toMatch(/Locker of +user 10002 · sandbox · token from standard input/);
  });

  it('locker download: --dry-run uses nothing; each download says how many are left; check then says since when there are none', async () => {
    const lt = releases.flatMap((lr) => (lr.available === false ? [] : tracksOf(lr))).find((x) => x.remainingDownloads === 3 && x.track.id !== tracksOf(releases[0])[0].track.id);
    const id = lt.track.id;
    let r = await pty(`mcat locker download ${id} --dry-run -O dry.mp3`);
    expect(r.code, r.out).toBe(0);
    expect(plain(r.out)).toMatch(new RegExp(`dry run: would download track ${id} .* as MP3 320 to dry\\.mp3; 3 downloads left now, 2 after; nothing was downloaded`));
    expect(existsSync(join(work, 'dry.mp3'))).toBe(false);
    expect(JSON.parse((await run(['locker', 'check', String(id), '-o', 'json'])).stdout).remainingDownloads).toBe(3);

    const said: string[] = [];
    for (const n of [1, 2, 3]) {
      r = await pty(`mcat locker download ${id} -O dl-${n}.mp3`);
      expect(r.code, r.out).toBe(0);
      said.push(plain(r.out).match(/saved dl-\d\.mp3 \(\d+ bytes\); (.*)/)![1].trim());
    }
    expect(said).toEqual(['2 downloads left', '1 download left', 'no downloads left now (streaming stays possible)']);

    r = await pty(`mcat locker check ${id}`, { TZ: 'UTC' });
    expect(r.code).toBe(3);
    const today = new Date().toISOString().slice(0, 10);
    expect(plain(r.out)).toMatch(new RegExp(`no downloads left \\(since ${today} \\d\\d:\\d\\d, when mcat on this machine used the last one\\)`));
  });

  it('locker download --help lists its own options only, and refuses the listing filters; a misspelt command gets a suggestion', async () => {
    // the help's one line naming the global options is as long as it is (scripting's design): the rest fits
    let r = await pty('mcat locker download --help', {}, { fits: false });
    expect(r.code).toBe(0);
    const help = plain(r.out);
    expect(widest(help)).toBeLessThanOrEqual(80);
    expect(help).toContain('--dry-run');
    expect(help).toContain('--output-file');
    for (const listing of ['--unavailable', '--available', '--sort', '--purchased-since', '--page-size', '--all']) expect(help).not.toContain(listing);

    r = await pty('mcat locker download 10000101 --unavailable');
    expect(r.code).toBe(2);
    expect(plain(r.out)).toMatch(/^mcat: unknown option '--unavailable' for 'locker download'\nhint: --unavailable belongs to the listing: mcat locker --unavailable$/m);
    expect(existsSync(join(work, 'Bright Lanterns - Summer under Home.mp3'))).toBe(false);

    r = await pty('mcat locker downlaod 1');
    expect(r.code).toBe(2);
    expect(plain(r.out)).toMatch(/^mcat: unknown command 'downlaod' for 'locker' \(did you mean download\?\)$/m);
  });

  it("whose data: another user's playlists with this token say whose token it is and what to do; their token on stdin works", async () => {
    let r = await pty('mcat playlist list --user 10002');
    expect(r.code).toBe(4);
    const text = plain(r.out);
    expect(text).toMatch(/^mcat: the token in use \(from the sandbox\) is user 10001's, not user 10002's: the credentials are fine/m);
    expect(text).toMatch(/^hint: for user 10002's data use their token: .*--profile cust-10002.*--user-token-from-stdin/m);
    expect(text).not.toMatch(/check the profile's credentials/);

    const big = user('10002');
    r = await pty(`printf '%s\\n' ${big.token} ${big.tokenSecret} | mcat playlist list --user 10002 --user-token-from-stdin -o json`);
    expect(r.code, r.out).toBe(0);
    expect(plain(r.out)).toMatch(/"totalItems": 0/);

    // group add and replace read the token's lines as playlist ids, and quoted the token in the error
    const gid = sb.info.examples.groupId;
    for (const args of [
      ['playlist', 'create', '--name', 'x', '--from', '-'],
      ['playlist', 'apply', '-'],
      ['group', 'add', gid, '--playlist', '-'],
      ['group', 'replace', gid, '--name', 'g', '--playlist', '-'],
    ]) {
      const c = await run([...args, '--user-token-from-stdin'], { input: 'tok-on-stdin-a1\ntoksecret-on-stdin-b2\n' });
      expect(c.exitCode, args.join(' ')).toBe(2);
      expect(c.stderr, args.join(' ')).toMatch(/--user-token-from-stdin and .* cannot both read standard input/);
      expect(c.stderr).not.toMatch(/on-stdin/);
    }
    const g = await run(['group', 'show', sb.info.examples.groupId, '--user', '10002', '--user-token-from-stdin'], { input: `${big.token}\n${big.tokenSecret}\n` });
    // the group is user 10001's: refused, and said to be so for the token given on stdin
    expect(g.exitCode).toBe(4);
    expect(g.stderr).toMatch(/^mcat: access denied: this is not the data of the token's user \(user 10002, from standard input\); the credentials are fine/m);
  });

  it('auth login checks the credentials before saving; auth status says each is valid', async () => {
    const h = tempHome();
    const c = sb.info.consumers.find((x) => x.countries.length > 1)!;
    const cust = user('10002');
    let r = await pty(`printf '%s\\n' ${c.key} WRONG | mcat auth login --profile cust --base-url ${sb.baseUrl} --with-secrets-from-stdin`, { HOME: h, MCAT_CONFIG_DIR: join(h, 'cfg') });
    expect(r.code).toBe(4);
    expect(plain(r.out)).toMatch(/rejected .*invalid signature; profile 'cust' was not saved/);
    r = await pty(
      `printf '%s\\n' ${c.key} ${c.secret} ${cust.token} ${cust.tokenSecret} | mcat auth login --profile cust-10002 --user-id 10002 --country GB --base-url ${sb.baseUrl} --with-secrets-from-stdin && mcat auth status`,
      { HOME: h, MCAT_CONFIG_DIR: join(h, 'cfg') },
    );
    expect(r.code, r.out).toBe(0);
    expect(plain(r.out)).toMatch(/key and secret: +valid\ntoken check: +valid/);
    expect(plain(r.out)).not.toContain(cust.tokenSecret);
  });

  it('demo playlists show their tracks’ titles; a track the catalogue does not know, stored without metadata, shows its id and a dash (tables only)', async () => {
    let r = await pty(`mcat playlist show ${sb.info.examples.playlistIds[0]} --no-color`);
    expect(r.code).toBe(0);
    const first = tracksOf(releases[0])[0].track;
    expect(plain(r.out)).toContain(first.title.slice(0, 12));

    const made = await run(['playlist', 'create', '--name', 'Bare', '--from', '-', '--input-format', 'csv', '-o', 'json'], { input: 'trackId\n99999901\n' });
    expect(made.exitCode, made.stderr).toBe(0);
    const id = JSON.parse(made.stdout).playlist.id;
    r = await pty(`mcat playlist show ${id} --no-color`);
    expect(plain(r.out)).toMatch(/^ *1 +99999901 +— +— +— +— +\d{4}-/m);
    const csv = await run(['playlist', 'show', id, '-o', 'csv']);
    expect(csv.stdout).not.toContain('—');
  });

  it('playlist apply --dry-run reads each group once and says which adds are already there', async () => {
    const [p1, p2, p3] = sb.info.examples.playlistIds;
    const g = sb.info.examples.groupId;
    await run(['group', 'replace', g, '--name', 'Everyday Listening', '--playlist', p1, p2]);
    writeFileSync(join(work, 'g.ndjson'), JSON.stringify({ op: 'group-add', groupId: g, playlistIds: [p1, p3] }) + '\n');
    // the plan fits the 80 columns: a line wider is wrapped under itself (its ids whole), not cut
    const r = await pty('mcat playlist apply g.ndjson --dry-run');
    expect(r.code, r.out).toBe(0);
    const text = plain(r.out).replace(/\r?\n {6}(?=\S)/g, ' ');
    expect(text).toContain(`would add 1 playlist to group ${g}: ${p3}`);
    expect(text).toContain(`already in group ${g}, unchanged: ${p1}`);
    const after = JSON.parse((await run(['group', 'show', g, '-o', 'json'])).stdout);
    expect(after.playlistGroup.playlists.map((p: any) => p.id)).toEqual([p1, p2]);
  });

  it('errors say each thing once, with a hint that can help', async () => {
    let r = await pty('mcat track metadata 99999901');
    expect(r.code).toBe(1);
    expect(plain(r.out)).toMatch(/^mcat: Track not found, or owned by a label not licensed for this partner \(2001, HTTP 404\)$/m);

    const c = sb.info.consumers[0];
    r = await pty('mcat --base-url http://127.0.0.1:9 release batch 100001', { MCAT_CONSUMER_KEY: c.key, MCAT_CONSUMER_SECRET: c.secret, MCAT_COUNTRY: 'GB' });
    expect(r.code).toBe(1);
    const text = plain(r.out);
    expect(text).toMatch(/^mcat: connection refused by 127\.0\.0\.1:9\nhint: is the server running\?/m);
    expect(text).not.toMatch(/ECONNREFUSED|--timeout/);
  });
});


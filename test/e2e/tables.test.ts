// Tables at real size, as a support agent sees them: every table view in a pseudo-terminal at 60,
// 80, 120 and 200 columns, the big locker (22,000 releases) streamed at 80, the pager, the
// "Showing 1–10 of 14" line, whose data a table shows, envelopes that keep totalItems, dates.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/mcat';
import { mcatIn as mcat } from '../helpers/mcat-in';
import { hasScript, mcatLine, pty, q } from '../helpers/pty';
import { startTestSandbox } from '../helpers/sandbox';
import { textWidth } from '../../src/output/width';

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;
let sb: Sandbox;
const dir = mkdtempSync(join(tmpdir(), 'mcat-tables-'));
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;
function widest(text: string): number {
  let w = 0;
  for (const l of text.split('\n')) w = Math.max(w, textWidth(l.replace(ANSI, '')));
  return w;
}
const run = (args: string[], opts: Parameters<typeof mcat>[1] = {}) => mcat(args, { sandboxDir: sb.dataDir, ...opts });

function userEnv(userId: string): Record<string, string> {
  const u = sb.info.users.find((x) => x.userId === userId)!;
  return { MCAT_TOKEN: u.token, MCAT_TOKEN_SECRET: u.tokenSecret, MCAT_USER_ID: u.userId };
}

/** A pager that records what it reads (and its LESS) in files, then says it is done. */
function recorder(name: string): { command: string; input: string; less: string } {
  const input = join(dir, `${name}.in`);
  const less = join(dir, `${name}.less`);
  const command = join(dir, `${name}.sh`);
  writeFileSync(command, `#!/bin/sh\nprintf '%s' "$LESS" > ${q(less)}\ncat > ${q(input)}\necho PAGER-END\n`);
  chmodSync(command, 0o755);
  return { command, input, less };
}

beforeAll(async () => {
  sb = await startTestSandbox();
  // a name with wide characters, an emoji sequence and a combining mark, to measure
  const r = await run(['playlist', 'create', '--name', 'Tōkyō 東京の夜 ❤️ 👩‍💻 Cafe\u0301 mix', '-o', 'json']);
  expect(r.exitCode, r.stderr).toBe(0);
});
afterAll(async () => {
  await sb?.close();
});

describe.skipIf(!hasScript())('tables in a terminal', () => {
  it('every table view fits 60, 80, 120 and 200 columns, headers on one line', async () => {
    const ex = sb.info.examples;
    const views = [
      ['release', 'batch', ...ex.releaseIds.slice(0, 4).map(String)],
      ['release', 'tracks', String(ex.releaseIds[0])],
      ['artist', 'releases', String(ex.artistWithManyReleases)],
      ['track', 'metadata', String(ex.trackIds[0])],
      ['locker'],
      ['playlist', 'list', '--all'],
      ['playlist', 'show', ex.playlistIds[0]],
      ['group', 'show', ex.groupId],
      ['profile', 'list'],
    ];
    for (const cols of [60, 80, 120, 200]) {
      // one terminal per width; stderr (notices) apart from what stdout shows
      const line = views.map((v, i) => `echo @@${i}; ${mcatLine(v)} 2>>${q(join(dir, 'views.err'))} || echo FAILED`).join('; ');
      const r = await pty(line, { cols, sandboxDir: sb.dataDir });
      expect(r.out).not.toContain('FAILED');
      const parts = r.out.split(/^@@\d+\n/m).slice(1);
      expect(parts).toHaveLength(views.length);
      parts.forEach((text, i) => {
        const what = `${views[i].join(' ')} at ${cols} columns`;
        expect(text.trim(), what).not.toBe('');
        expect(widest(text), what).toBeLessThanOrEqual(cols);
      });
      // the heading, then a header of one line (the track metadata sheet has none)
      const locker = parts[4].replace(ANSI, '').split('\n');
      expect(locker[0]).toBe('Locker of user 10001 · sandbox');
      expect(locker[1]).toMatch(/^\s+ID\s+Title\s+Artist\s+/);
      expect(locker[2]).toMatch(/^\s+\d{6}\s/);
      if (cols >= 80) expect(parts[5]).toContain('東京の夜');
    }
  });

  it('the big locker (22,000 releases) as a table at 80 columns: complete, no line wider, the summary last', async () => {
    const rec = recorder('big');
    const r = await pty(`${mcatLine(['locker', '--all'])} 2>${q(join(dir, 'big.err'))}`, {
      cols: 80,
      sandboxDir: sb.dataDir,
      env: { ...userEnv(sb.info.examples.bigLockerUser), MCAT_PAGER: rec.command },
      timeout: 120_000,
    });
    expect(r.exitCode, readFileSync(join(dir, 'big.err'), 'utf8')).toBe(0);
    const text = readFileSync(rec.input, 'utf8');
    expect(text.startsWith('\u001b[2mLocker of user 10002 · sandbox')).toBe(true);
    expect(widest(text)).toBeLessThanOrEqual(80);
    const lines = text.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(22_000);
    expect(lines[lines.length - 1].replace(ANSI, '')).toMatch(/^22000 releases, \d+ tracks, \d+ unavailable, \d+ with no downloads left$/);
  }, 130_000);

  it('streams: rows reach the pager as pages arrive; a pager quitting early ends the run quietly, fetching no more', async () => {
    const err = join(dir, 'early.err');
    const out = join(dir, 'early.in');
    const r = await pty(`${mcatLine(['--verbose', 'locker', '--all'])} 2>${q(err)}; echo EXIT=$?`, {
      cols: 80,
      sandboxDir: sb.dataDir,
      env: { ...userEnv(sb.info.examples.bigLockerUser), MCAT_PAGER: `head -c 20000 > ${q(out)}` },
    });
    expect(r.out).toContain('EXIT=0');
    expect(readFileSync(out, 'utf8')).toContain('Locker of user 10002');
    const stderr = readFileSync(err, 'utf8');
    expect(stderr).not.toMatch(/EPIPE|Error|at .*\.cjs/);
    const pages = stderr.split('\n').filter((l) => /^> GET \S+\/user\/locker\?/.test(l)).length;
    expect(pages).toBeGreaterThan(0);
    // of 440: the pages read before the pager's stdin filled and it quit (the pipe holds a few
    // 32 KB pages before the pager has even started), and up to 4 in flight
    expect(pages).toBeLessThan(20);
  });

  it('the pager: MCAT_PAGER, else PAGER, LESS=FRX unless set; --no-pager and -o json print directly', async () => {
    const a = recorder('a');
    const b = recorder('b');
    let r = await pty(mcatLine(['playlist', 'list']), { cols: 80, sandboxDir: sb.dataDir, env: { MCAT_PAGER: a.command, PAGER: b.command } });
    expect(r.exitCode).toBe(0);
    expect(r.out).toContain('PAGER-END');
    expect(readFileSync(a.input, 'utf8')).toContain('Playlists of user 10001 · sandbox');
    expect(readFileSync(a.input, 'utf8')).toContain('Morning Commute');
    expect(readFileSync(a.less, 'utf8')).toBe('FRX');
    expect(existsSync(b.input)).toBe(false);

    r = await pty(mcatLine(['playlist', 'list']), { cols: 80, sandboxDir: sb.dataDir, env: { MCAT_PAGER: undefined, PAGER: b.command, LESS: '-i' } });
    expect(r.exitCode).toBe(0);
    expect(readFileSync(b.input, 'utf8')).toContain('Morning Commute');
    expect(readFileSync(b.less, 'utf8')).toBe('-i');

    const c = recorder('c');
    for (const args of [['playlist', 'list', '--no-pager'], ['playlist', 'list', '-o', 'json']]) {
      r = await pty(mcatLine(args), { cols: 80, sandboxDir: sb.dataDir, env: { MCAT_PAGER: c.command } });
      expect(r.exitCode).toBe(0);
      expect(r.out).toContain('Morning Commute');
      expect(r.out).not.toContain('PAGER-END');
    }
    expect(existsSync(c.input)).toBe(false);
  });

  it('Ctrl-C while the pager shows: the output stops, mcat waits for the pager, then ends with 130', async () => {
    const out = join(dir, 'int.in');
    const pager = join(dir, 'int.sh');
    writeFileSync(pager, `#!/bin/sh\ntrap '' INT\nhead -c 2000 > ${q(out)}\nkill -INT 0\nsleep 0.3\ncat >> ${q(out)}\necho PAGER-END\n`);
    chmodSync(pager, 0o755);
    // the pager's Ctrl-C reaches the whole process group, the shell too: its trap keeps it alive to
    // say how mcat ended (a non-interactive sh would otherwise end on the signal itself)
    const r = await pty(`trap 'true' INT; ${mcatLine(['locker', '--all'])} 2>/dev/null; echo EXIT=$?`, {
      cols: 80,
      sandboxDir: sb.dataDir,
      env: { ...userEnv(sb.info.examples.bigLockerUser), MCAT_PAGER: pager },
    });
    expect(r.out).toMatch(/PAGER-END\n(.*\n)*EXIT=130/);
    expect(readFileSync(out, 'utf8').split('\n').length).toBeLessThan(20_000);
  });

  it('an error after the table began shows once the pager has ended, not behind it', async () => {
    const pager = join(dir, 'slow.sh');
    writeFileSync(pager, `#!/bin/sh\ncat > /dev/null\nsleep 0.3\necho PAGER-END\n`);
    chmodSync(pager, 0o755);
    const ids = [String(sb.info.examples.releaseIds[0]), String(sb.info.examples.unknownReleaseId)];
    const r = await pty(`${mcatLine(['release', 'batch', ...ids])}; echo EXIT=$?`, { cols: 80, sandboxDir: sb.dataDir, env: { MCAT_PAGER: pager } });
    expect(r.out).toMatch(/PAGER-END\n(.*\n)*mcat: 1 of 2 release ids could not be read.*\n(.*\n)*EXIT=3/);
  });

  it('on a dumb terminal (TERM=dumb or unset) no less unless a pager is named: it would stop at "Press RETURN"', async () => {
    // a 'less' first on PATH that records what it is given
    const bin = join(dir, 'dumb-bin');
    const input = join(dir, 'dumb.in');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'less'), `#!/bin/sh\ncat > ${q(input)}\necho LESS-RAN\n`);
    chmodSync(join(bin, 'less'), 0o755);
    const env = { MCAT_PAGER: undefined, PAGER: undefined, PATH: `${bin}:${process.env.PATH}` };
    for (const term of ['TERM=dumb', 'unset TERM;']) {
      const r = await pty(`${term} ${mcatLine(['playlist', 'list'])}; echo EXIT=$?`, { cols: 80, sandboxDir: sb.dataDir, env });
      expect(r.out, term).toContain('EXIT=0');
      expect(r.out, term).toContain('Morning Commute');
      expect(r.out, term).not.toContain('LESS-RAN');
      if (term === 'TERM=dumb') expect(r.out, term).not.toMatch(/\u001b\[/); // no colour either
      expect(existsSync(input), term).toBe(false);
    }
    // the same less on an ordinary terminal, and a pager named on a dumb one: used
    let r = await pty(`${mcatLine(['playlist', 'list'])}; echo EXIT=$?`, { cols: 80, sandboxDir: sb.dataDir, env });
    expect(r.out).toContain('LESS-RAN');
    expect(readFileSync(input, 'utf8')).toContain('Morning Commute');
    const named = recorder('dumb-named');
    r = await pty(`TERM=dumb ${mcatLine(['playlist', 'list'])}; echo EXIT=$?`, { cols: 80, sandboxDir: sb.dataDir, env: { ...env, PAGER: named.command } });
    expect(r.out).toContain('PAGER-END');
    expect(readFileSync(named.input, 'utf8')).toContain('Morning Commute');
  });

  it('no progress line on a dumb terminal (it cannot take a line back): the sheet alone', async () => {
    const r = await pty(`TERM=dumb ${mcatLine(['locker', 'summary'])}; echo EXIT=$?`, {
      cols: 80,
      sandboxDir: sb.dataDir,
      env: userEnv(sb.info.examples.bigLockerUser),
      timeout: 120_000,
    });
    expect(r.out).toContain('EXIT=0');
    expect(r.out).toMatch(/\nReleases +22,000\n/);
    expect(r.out).not.toContain('reading the locker');
    expect(r.out).not.toContain('\u001b[2K');
  }, 130_000);

  it('a progress line and the rows of a table on one terminal: each row and each notice starts at the left edge, never after the progress text', async () => {
    const run = (pager: boolean) =>
      pty(`${mcatLine(['locker', 'find', 'Gold for City', ...(pager ? [] : ['--no-pager'])])}; echo EXIT=$?`, {
        cols: 80,
        sandboxDir: sb.dataDir,
        env: { ...userEnv(sb.info.examples.bigLockerUser), MCAT_PAGER: pager ? recorder('find').command : undefined },
        timeout: 120_000,
      });
    const r = await run(false);
    expect(r.out).toContain('EXIT=0');
    expect(r.out).toMatch(/mcat: reading the locker: [\d,]+ of 22,000 releases/);
    expect(r.out).toMatch(/Gold for City/);
    // the progress text is always taken back (\r, erase line) before anything else is written
    expect(r.out).not.toMatch(/of 22,000 releases(?!\r\u001b\[2K)/);
    // with a pager, no progress line once the pager has the screen
    const p = await run(true);
    expect(p.out).toContain('PAGER-END');
    expect(p.out.slice(p.out.indexOf('PAGER-END'))).not.toContain('reading the locker');
  }, 130_000);

  it('a pager that does not exist: said once, the table printed anyway', async () => {
    const r = await pty(mcatLine(['playlist', 'list']), { cols: 80, sandboxDir: sb.dataDir, env: { MCAT_PAGER: 'no-such-pager-here --flag' } });
    expect(r.exitCode).toBe(0);
    expect(r.out).toContain("mcat: pager 'no-such-pager-here --flag' not found; writing to the terminal");
    expect(r.out).toContain('Morning Commute');
  });
});

describe('a page past the end of a list', () => {
  it('says so with how many there are, not an empty table that reads as none (exit 0)', async () => {
    for (const [args, total] of [
      [['locker', '--page', '99'], 14],
      [['release', 'tracks', '100001', '--page', '5'], 8],
    ] as [string[], number][]) {
      const r = await run(['-o', 'table', ...args], { env: { COLUMNS: '80' } });
      expect(r.exitCode, r.stderr).toBe(0);
      const last = r.stdout.trimEnd().split('\n').pop();
      expect(last, args.join(' ')).toMatch(new RegExp(`^Page \\d+ is past the end: ${total} in all \\(\\d+ pages? of 10\\) · --all for everything$`));
    }
  });
});

describe('through a pipe', () => {
  it('never pages, whatever MCAT_PAGER says', async () => {
    const rec = recorder('pipe');
    const r = await run(['playlist', 'list', '-o', 'table'], { env: { MCAT_PAGER: rec.command } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('Morning Commute');
    expect(existsSync(rec.input)).toBe(false);
  });

  it('a table of one page of a longer list says so, with how to see the rest', async () => {
    const last = (s: string) => s.trimEnd().split('\n').pop();
    let r = await run(['locker', '-o', 'table']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^10 releases, /m);
    expect(last(r.stdout)).toBe('Showing 1–10 of 14 · --all for everything, --page 2 for the next');
    r = await run(['locker', '-o', 'table', '--page', '2']);
    expect(last(r.stdout)).toBe('Showing 11–14 of 14 · --all for everything');
    r = await run(['artist', 'releases', String(sb.info.examples.artistWithManyReleases), '-o', 'table']);
    expect(last(r.stdout)).toBe('Showing 1–10 of 141 · --all for everything, --page 2 for the next');
    r = await run(['locker', '-o', 'table', '--limit', '3']);
    expect(last(r.stdout)).toBe('Showing 1–3 of 14 · --all for everything');
    r = await run(['locker', '-o', 'table', '--all']);
    expect(last(r.stdout)).toMatch(/^14 releases, /);
    expect(r.stdout).not.toContain('Showing');
    r = await run(['locker', '-o', 'table', '--unavailable']); // a filtered list: not a page of the service's
    expect(r.stdout).not.toContain('Showing');
  });

  it('the next page is named with the --page-size asked for, so that following it skips nothing', async () => {
    const last = (s: string) => s.trimEnd().split('\n').pop();
    const artist = String(sb.info.examples.artistWithManyReleases);
    let r = await run(['artist', 'releases', artist, '-o', 'table', '--page-size', '5', '--page', '2']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(last(r.stdout)).toBe('Showing 6–10 of 141 · --all for everything, --page 3 --page-size 5 for the next');
    r = await run(['locker', '-o', 'table', '--page-size', '3']);
    expect(last(r.stdout)).toBe('Showing 1–3 of 14 · --all for everything, --page 2 --page-size 3 for the next');
    r = await run(['playlist', 'list', '-o', 'table', '--page-size', '2']);
    expect(last(r.stdout)).toMatch(/^Showing 1–2 of \d+ · --all for everything, --page 2 --page-size 2 for the next$/);
  });

  it('a filtered walk whose first pages match nothing: the widths come from the rows found, not from the empty pages', async () => {
    const json = JSON.parse((await run(['locker', '--all', '--no-downloads-left', '-o', 'json'])).stdout);
    const title: string = json.locker.lockerReleases.lockerRelease[0].release.title;
    const one = await run(['locker', '--all', '--no-downloads-left', '-o', 'table'], { env: { COLUMNS: '100' } });
    // pages of one release: the first ones hold no match
    const r = await run(['locker', '--all', '--page-size', '1', '--no-downloads-left', '-o', 'table'], { env: { COLUMNS: '100' } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^\\s+\\d+\\s+${title}\\s`, 'm'));
    expect(r.stdout).toBe(one.stdout);
  });

  it('a sheet at 40 and 20 columns: a value wider than its column (an id, a URL) is broken across lines, never cut', async () => {
    const id = sb.info.examples.playlistIds[0];
    const shown = JSON.parse((await run(['playlist', 'show', id, '-o', 'json'])).stdout).playlist;
    for (const cols of ['40', '20']) {
      const r = await run(['playlist', 'show', id, '-o', 'table'], { env: { COLUMNS: cols } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(widest(r.stdout), `at ${cols}`).toBeLessThanOrEqual(Number(cols));
      const sheet = r.stdout.slice(0, r.stdout.search(/^#\s/m));
      expect(sheet, `at ${cols}`).not.toContain('…');
      const joined = sheet.replace(/\n\s*/g, '');
      expect(joined).toMatch(new RegExp(`ID +${id}Name`));
      expect(joined).toContain(`Image${' '.repeat(cols === '40' ? 13 : 5)}${shown.image}Tags`);
    }
  });

  it('--limit keeps the service\'s totalItems in json and xml, and says on stderr that it cut the list', async () => {
    const artist = String(sb.info.examples.artistWithManyReleases);
    let r = await run(['artist', 'releases', artist, '--limit', '3', '-o', 'json']);
    expect(r.exitCode).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.releases.releases).toHaveLength(3);
    expect(body.releases.totalItems).toBe(141);
    expect(r.stderr).toContain('mcat: stopped at --limit 3: 3 of 141 shown (--all for everything)');
    r = await run(['locker', '-o', 'xml', '--limit', '1']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('<totalItems>14</totalItems>');
    expect(r.stdout.match(/<lockerRelease>/g)).toHaveLength(1);
    expect(r.stderr).toContain('mcat: stopped at --limit 1: 1 of 14 shown');
    r = await run(['playlist', 'list', '--limit', '2', '-o', 'ndjson']);
    expect(r.stdout.trim().split('\n')).toHaveLength(2);
    expect(r.stderr).toMatch(/mcat: stopped at --limit 2: 2 of \d+ shown/);
    r = await run(['locker', '--limit', '500', '-o', 'json']);
    expect(JSON.parse(r.stdout).locker.lockerReleases.totalItems).toBe(14);
    expect(r.stderr).not.toContain('--limit');
  });

  it('each table says whose data and from where; json does not', async () => {
    let r = await run(['locker', '-o', 'table']);
    expect(r.stdout.split('\n')[0]).toBe('Locker of user 10001 · sandbox');
    r = await run(['locker', 'find', 'shadow', '-o', 'table']);
    expect(r.stdout.split('\n')[0]).toBe('Locker of user 10001, matching "shadow" · sandbox');
    expect((await run(['locker', 'find', 'shadow', '-o', 'csv'])).stdout).not.toContain('Locker of');
    r = await run(['locker', '-o', 'json']);
    expect(r.stdout).not.toContain('Locker of');
    // a token that is not the profile's (here the sandbox's) is named with where it came from
    const big = sb.info.users.find((u) => u.userId === sb.info.examples.bigLockerUser)!;
    r = await run(['locker', '-o', 'table', '--page-size', '1', '--user-token-from-stdin'], { input: `${big.token}\n${big.tokenSecret}\n` });
    expect(r.stdout.split('\n')[0]).toBe('Locker of user 10002 · sandbox · token from standard input');
    const home = tempHome();
    const consumer = sb.info.consumers.find((c) => c.countries.length > 1)!;
    const user = sb.info.users.find((u) => u.userId === sb.info.examples.lockerUser)!;
    const login = await mcat(
      ['auth', 'login', '--profile', 'live', '--base-url', sb.baseUrl, '--country', 'GB', '--user-id', user.userId, '--with-secrets-from-stdin'],
      { home, input: `${consumer.key}\n${consumer.secret}\n${user.token}\n${user.tokenSecret}\n` },
    );
    expect(login.exitCode, login.stderr).toBe(0);
    const host = new URL(sb.baseUrl).host;
    r = await mcat(['locker', '-o', 'table'], { home });
    expect(r.stdout.split('\n')[0]).toBe(`Locker of user 10001 · profile live (${host})`);
    r = await mcat(['release', 'tracks', String(sb.info.examples.releaseIds[0]), '-o', 'table'], { home });
    expect(r.stdout.split('\n')[0]).toBe(`Tracks of release ${sb.info.examples.releaseIds[0]} · GB catalogue · profile live (${host})`);
    // the profile's user id names the profile's token, not another one from MCAT_TOKEN
    r = await mcat(['locker', '-o', 'table', '--page-size', '1'], { home, env: { MCAT_TOKEN: big.token, MCAT_TOKEN_SECRET: big.tokenSecret, COLUMNS: '120' } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(`Locker of the token's user · profile live (${host}) · token from MCAT_TOKEN`);
    // the built-in sandbox with MCAT_USER_ID: that demo user's data, under that user's name
    r = await run(['locker', '-o', 'table', '--page-size', '1'], { env: { MCAT_USER_ID: big.userId } });
    expect(r.stdout.split('\n')[0]).toBe('Locker of user 10002 · sandbox');
    expect(r.stdout).toMatch(/Showing 1–1 of 22000 /);
  });

  it('narrow terminals leave out the lowest-ranked columns, said once with --fields to choose', async () => {
    const artist = String(sb.info.examples.artistWithManyReleases);
    let r = await run(['artist', 'releases', artist, '-o', 'table', '--all'], { env: { COLUMNS: '80' } });
    expect(r.exitCode).toBe(0);
    expect(r.stderr.match(/left out/g)).toHaveLength(1);
    expect(r.stderr).toContain('mcat: left out to fit 80 columns: Label (label.name), Year (year), Type (type); choose columns with --fields');
    expect(r.stdout.split('\n')[1]).toMatch(/^\s+ID\s+Title\s+Artist\s+Tracks\s+Price\s+Released$/);
    expect(widest(r.stdout)).toBeLessThanOrEqual(80);
    r = await run(['artist', 'releases', artist, '-o', 'table', '--fields', 'id,title,label.name'], { env: { COLUMNS: '80' } });
    expect(r.stderr).not.toContain('left out');
    expect(r.stdout.split('\n')[1]).toMatch(/^id\s+title\s+label\.name$/);
  });

  it('dates: one short local form in tables and sheets; csv and json as received', async () => {
    const env = { TZ: 'Asia/Tokyo' };
    const id = sb.info.examples.playlistIds[0];
    const json = JSON.parse((await run(['playlist', 'show', id, '-o', 'json'])).stdout);
    expect(json.playlist.lastUpdated).toBe('2024-05-01T10:00:00.000Z');
    const table = await run(['playlist', 'list', '-o', 'table'], { env });
    expect(table.stdout).toMatch(new RegExp(`${id}\\s+Morning Commute\\s.*2024-05-01 19:00`));
    const sheet = await run(['playlist', 'show', id, '-o', 'table'], { env });
    expect(sheet.stdout).toMatch(/^Last updated\s+2024-05-01 19:00$/m);
    expect(sheet.stdout).toMatch(/^\s*1\s+\d+\s.*2024-05-01 18:00$/m); // the tracks' dateAdded
    const csv = await run(['playlist', 'list', '-o', 'csv'], { env });
    expect(csv.stdout).toContain('2024-05-01T10:00:00.000Z');
    // track metadata's "Tags updated" too (it showed the ISO timestamp as received)
    const track = String(sb.info.examples.trackIds[0]);
    const sent = JSON.parse((await run(['track', 'metadata', track, '-o', 'json'])).stdout).track.tagsUpdatedAt as string;
    const local = new Date(sent).toLocaleString('sv-SE', { timeZone: 'Asia/Tokyo', hour12: false }).slice(0, 16);
    const meta = await run(['track', 'metadata', track, '-o', 'table'], { env });
    expect(meta.stdout).toMatch(new RegExp(`^Tags updated\\s+${local}$`, 'm'));
  });
});

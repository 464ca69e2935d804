// No secret ever printed: every command, with --verbose, with good and with failing credentials;
// stdout, stderr, journals and reports are scanned for every consumer secret, token secret and
// OAuth signature.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { startTestSandbox } from '../helpers/sandbox';
import { mcat, tempHome } from '../helpers/mcat';
import { mapLimit } from '../helpers/pool';

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;
let sb: Sandbox;
let work: string;

beforeAll(async () => {
  sb = await startTestSandbox();
  work = mkdtempSync(join(tmpdir(), 'mcat-secrets-'));
});
afterAll(async () => {
  await sb?.close();
});

function commands(): string[][] {
  const ex = sb.info.examples;
  const pl = ex.playlistIds[0];
  const rel = String(ex.releaseIds[0]);
  const tr = String(ex.trackIds[0]);
  const edits = join(work, 'edits.ndjson');
  writeFileSync(edits, JSON.stringify({ op: 'details', playlistId: pl, name: 'secret scan' }) + '\n');
  const tracks = join(work, 'tracks.json');
  writeFileSync(tracks, JSON.stringify({ tracks: [{ trackId: tr }] }));
  return [
    ['release', 'batch', rel, String(ex.unknownReleaseId)],
    ['release', 'tracks', rel],
    ['release', 'tracks', String(ex.unlicensedReleaseId)],
    ['artist', 'releases', String(ex.artistWithManyReleases)],
    ['track', 'metadata', tr],
    ['locker', '--page-size', '2'],
    ['locker', '-o', 'xml', '--page-size', '1'],
    ['locker', 'stream-check', tr],
    ['locker', 'download', tr, '-O', join(work, `dl-${Math.random()}.mp3`)],
    ['playlist', 'list'],
    ['playlist', 'show', pl],
    ['playlist', 'details', pl, '--name', 'scan'],
    ['playlist', 'replace', pl, '--from', tracks, '--dry-run'],
    ['group', 'show', ex.groupId],
    ['group', 'add', ex.groupId, '--playlist', pl],
    ['playlist', 'apply', edits, '--journal', join(work, `journal-${Math.random()}`), '--report', join(work, `report-${Math.random()}.ndjson`)],
    ['playlist', 'export'],
    ['auth', 'status'],
    ['profile', 'list'],
    ['api', 'GET', '/1.2/user/locker'],
  ];
}

function scan(text: string, secrets: string[]): string[] {
  const found: string[] = [];
  for (const s of secrets) {
    if (!s) continue;
    if (text.includes(s) || text.includes(encodeURIComponent(s))) found.push(`secret ${s.slice(0, 3)}…`);
  }
  const sig = /oauth_signature(?:%3D|=|"\s*:\s*"|="?)([A-Za-z0-9%+/=]{8,})/g;
  for (const m of text.matchAll(sig)) if (!/^\**$/.test(m[1]) && !m[1].includes('*')) found.push(`signature ${m[1].slice(0, 6)}…`);
  return found;
}

function filesText(): string {
  let text = '';
  for (const f of readdirSync(work)) {
    const p = join(work, f);
    if (statSync(p).isFile() && !f.endsWith('.mp3') && !f.endsWith('.json')) text += readFileSync(p, 'utf8');
  }
  return text;
}

describe('secrets never printed', () => {
  it('with good credentials and --verbose', async () => {
    const secrets = [...sb.info.consumers.map((c) => c.secret), ...sb.info.users.map((u) => u.tokenSecret)];
    const cmds = commands();
    const runs = await mapLimit(cmds, 4, (args) => mcat([...args, '--verbose'], { sandboxDir: sb.dataDir }));
    for (const [i, args] of cmds.entries()) {
      const r = runs[i];
      expect(r.stderr, args.join(' ')).toMatch(/GET|POST|PUT|sandbox|profile/);
      expect(scan(r.stdout + r.stderr, secrets), args.join(' ')).toEqual([]);
      expect(r.stderr, args.join(' ')).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
    }
    expect(scan(filesText(), secrets)).toEqual([]);
  });

  it('with failing credentials (wrong secrets) and --verbose: exit 4, nothing leaked', async () => {
    const consumer = sb.info.consumers[0];
    const user = sb.info.users[0];
    const wrong = { consumerSecret: 'WRONG-consumer-secret-Zq9', tokenSecret: 'WRONG-token-secret-Xk7' };
    const env = {
      MCAT_BASE_URL: sb.baseUrl,
      MCAT_CONSUMER_KEY: consumer.key,
      MCAT_CONSUMER_SECRET: wrong.consumerSecret,
      MCAT_TOKEN: user.token,
      MCAT_TOKEN_SECRET: wrong.tokenSecret,
      MCAT_COUNTRY: consumer.countries[0],
      MCAT_USER_ID: user.userId,
    };
    const secrets = [wrong.consumerSecret, wrong.tokenSecret, consumer.secret, user.tokenSecret];
    // catalogue reads need only a known key; auth/profile send nothing: still scanned
    const cmds = commands();
    const runs = await mapLimit(cmds, 4, (args) => mcat([...args, '--verbose'], { env, home: tempHome() }));
    for (const [i, args] of cmds.entries()) {
      const r = runs[i];
      expect(scan(r.stdout + r.stderr, secrets), args.join(' ')).toEqual([]);
      if (['locker', 'playlist', 'group'].includes(args[0]) && !args.includes('--dry-run')) {
        expect([3, 4], `${args.join(' ')}: ${r.stderr}`).toContain(r.exitCode);
      }
    }
    expect(scan(filesText(), secrets)).toEqual([]);
  });

  it('a password in the base URL: not in --verbose traces, errors or the output', async () => {
    const PW = 'URLPASS-9a8b7c';
    const consumer = sb.info.consumers.find((c) => c.countries.length > 1)!;
    const env = { MCAT_CONSUMER_KEY: consumer.key, MCAT_CONSUMER_SECRET: consumer.secret, MCAT_COUNTRY: consumer.countries[0] };
    const withPw = sb.baseUrl.replace('://', `://mcat:${PW}@`);
    const ok = await mcat(['release', 'batch', String(sb.info.examples.releaseIds[0]), '--verbose'], { env: { ...env, MCAT_BASE_URL: withPw } });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(/> GET /);
    const down = await mcat(['release', 'batch', '1', '--verbose', '--retries', '0'], { env: { ...env, MCAT_BASE_URL: `http://mcat:${PW}@127.0.0.1:9` } });
    expect(down.exitCode).toBe(1);
    expect(down.stderr).toMatch(/^mcat: .*127\.0\.0\.1:9/m);
    for (const r of [ok, down]) expect(r.stdout + r.stderr).not.toContain(PW);

    // the sandbox label: the URL the running sandbox advertises, masked too
    const serverFile = join(sb.dataDir, 'server.json');
    const original = readFileSync(serverFile, 'utf8');
    try {
      writeFileSync(serverFile, JSON.stringify({ ...JSON.parse(original), baseUrl: withPw }));
      const label = await mcat(['release', 'batch', String(sb.info.examples.releaseIds[0])], { sandboxDir: sb.dataDir });
      expect(label.exitCode, label.stderr).toBe(0);
      expect(label.stderr).toBe(`mcat: using the built-in sandbox (demo data) at ${sb.baseUrl.replace('://', '://mcat:****@')}\n`);
    } finally {
      writeFileSync(serverFile, original);
    }
  });

  it('the profiles file is 0600 and auth status masks the key', async () => {
    const home = tempHome();
    const consumer = sb.info.consumers[0];
    const user = sb.info.users[0];
    const login = await mcat(['auth', 'login', '--profile', 'p1', '--base-url', sb.baseUrl, '--country', 'GB', '--with-secrets-from-stdin'], {
      home,
      input: `${consumer.key}\n${consumer.secret}\n${user.token}\n${user.tokenSecret}\n`,
    });
    expect(login.exitCode).toBe(0);
    const cfgDir = join(home, '.config/mcat');
    const files = readdirSync(cfgDir).filter((f) => f.endsWith('.json'));
    expect(files.length).toBe(1);
    expect(statSync(join(cfgDir, files[0])).mode & 0o777).toBe(0o600);
    const st = await mcat(['auth', 'status', '--profile', 'p1', '-o', 'json'], { home });
    expect(st.exitCode).toBe(0);
    expect(st.stdout).toContain(consumer.key.slice(-4));
    expect(st.stdout).not.toContain(consumer.key);
    expect(scan(st.stdout + st.stderr, [consumer.secret, user.tokenSecret])).toEqual([]);
    expect(existsSync(join(cfgDir, files[0]))).toBe(true);
  });
});

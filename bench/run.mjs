#!/usr/bin/env node
// npm run bench: every benchmark of the project against a local sandbox, each figure beside a
// baseline measured in the same run, with the ratio and the goal. Prints one table at the end.
//
//   npm run bench                 all benchmarks
//   npm run bench -- startup bulk only some (startup, read, batch, locker, bulk, rate)
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createServer } from 'node:net';

const root = resolve(import.meta.dirname, '..');
const bin = join(root, 'bin/mcat');
const node = process.execPath;
const only = new Set(process.argv.slice(2));
const want = (name) => only.size === 0 || only.has(name);
const results = [];
const work = mkdtempSync(join(tmpdir(), 'mcat-bench-'));

function log(line) {
  process.stderr.write(`bench: ${line}\n`);
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Runs a command to completion; returns wall time in ms, exit code, stdout, and peak RSS in MB. */
function timeRun(cmd, args, { env = {}, input, rss = false } = {}) {
  return new Promise((resolvePromise, reject) => {
    const rssFile = rss ? join(work, `rss-${Math.random().toString(36).slice(2)}`) : undefined;
    const fullArgs = rss ? ['-f', '%M', '-o', rssFile, cmd, ...args] : args;
    const t0 = process.hrtime.bigint();
    const fullEnv = { ...process.env, ...benchEnv, ...env };
    // a null value removes the variable (the runs without NODE_EXTRA_CA_CERTS)
    for (const [k, v] of Object.entries(fullEnv)) if (v === null) delete fullEnv[k];
    const child = spawn(rss ? '/usr/bin/time' : cmd, fullArgs, {
      env: fullEnv,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out.length < 1e6 ? (out += d) : null));
    child.stderr.on('data', (d) => (err += d));
    if (input !== undefined) child.stdin.end(input);
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      let peakMb;
      if (rssFile) {
        try {
          peakMb = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop()) / 1024;
        } catch {
          peakMb = NaN;
        }
      }
      resolvePromise({ ms, code, out, err, peakMb });
    });
  });
}

async function mustRun(cmd, args, opts) {
  const r = await timeRun(cmd, args, opts);
  if (r.code !== 0) throw new Error(`${[cmd, ...args].join(' ')} exited ${r.code}: ${r.err.slice(0, 500)}`);
  return r;
}

function record(name, value, unit, baselineName, baseline, goal) {
  const ratio = value / baseline;
  results.push({ name, value, unit, baselineName, baseline, ratio, goal });
  log(`${name}: ${fmt(value)} ${unit} vs ${baselineName} ${fmt(baseline)} ${unit} -> ${ratio.toFixed(2)}x (${goal})`);
}

function fmt(x) {
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}

function freePort() {
  return new Promise((res) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

async function startSandbox(dataDir, extra = []) {
  const port = await freePort();
  const child = spawn(node, [bin, 'sandbox', 'start', '--host', '127.0.0.1', '--port', String(port), '--data', dataDir, ...extra], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    try {
      const r = await fetch(`${baseUrl}/__sandbox/health`);
      if (r.ok) break;
    } catch {
      // not up yet
    }
    if (child.exitCode !== null) throw new Error(`sandbox exited: ${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const info = JSON.parse(execFileSync(node, [bin, 'sandbox', 'info', '--json', '--data', dataDir], { encoding: 'utf8' }));
  return { child, baseUrl, info, stop: () => new Promise((r) => (child.exitCode !== null ? r() : (child.once('close', r), child.kill('SIGTERM')))) };
}

let benchEnv = {};

function envFor(sb, user) {
  const consumer = sb.info.consumers.find((c) => c.countries.length > 1) ?? sb.info.consumers[0];
  const u = sb.info.users.find((x) => x.userId === (user ?? sb.info.examples.lockerUser));
  return {
    HOME: work,
    MCAT_CONFIG_DIR: join(work, 'config'),
    MCAT_SANDBOX_DIR: join(work, 'no-sandbox-here'),
    // a cache of the bench's own, new in each run: the first run of each command fills it
    MCAT_CACHE_DIR: join(work, 'compile-cache'),
    MCAT_BASE_URL: sb.baseUrl,
    MCAT_CONSUMER_KEY: consumer.key,
    MCAT_CONSUMER_SECRET: consumer.secret,
    MCAT_TOKEN: u.token,
    MCAT_TOKEN_SECRET: u.tokenSecret,
    MCAT_USER_ID: u.userId,
    MCAT_COUNTRY: consumer.countries[0],
    NO_COLOR: '1',
  };
}

/** Alternates two commands so that both see the same machine state; returns their medians. */
async function sideBySide(a, b, runs) {
  const ta = [];
  const tb = [];
  for (let i = 0; i < runs; i++) {
    ta.push((await mustRun(...a)).ms);
    tb.push((await mustRun(...b)).ms);
  }
  return [median(ta), median(tb)];
}

async function main() {
  log(`work dir ${work}`);
  const dataDir = join(work, 'sandbox');
  const t0 = Date.now();
  const sb = await startSandbox(dataDir);
  log(`sandbox at ${sb.baseUrl} (${Date.now() - t0} ms to start on a fresh data dir)`);
  benchEnv = envFor(sb);
  try {
    await startupRows(sb, '', {});
    // NODE_EXTRA_CA_CERTS makes every Node process read and parse a CA bundle at start (~30 ms
    // here), the baselines' as much as mcat's: the same rows without it show mcat's own overhead.
    if ((want('startup') || want('read')) && process.env.NODE_EXTRA_CA_CERTS) {
      const clean = { NODE_EXTRA_CA_CERTS: null };
      const [withCa, without] = await sideBySide([node, ['-e', '0']], [node, ['-e', '0'], { env: clean }], 15);
      log(`NODE_EXTRA_CA_CERTS is set: node -e 0 takes ${fmt(withCa)} ms with it, ${fmt(without)} ms without`);
      await startupRows(sb, ' [no NODE_EXTRA_CA_CERTS]', clean);
    }
    if (want('batch')) {
      const ids = sb.info.examples.releaseIds;
      const mk = (n) => Array.from({ length: n }, (_, i) => ids[i % ids.length]).join('\n');
      const f500 = join(work, 'ids500.txt');
      const f5000 = join(work, 'ids5000.txt');
      writeFileSync(f500, mk(500));
      writeFileSync(f5000, mk(5000));
      const [one, ten] = await sideBySide(
        [node, [bin, 'release', 'batch', '--ids-file', f500, '-o', 'ndjson']],
        [node, [bin, 'release', 'batch', '--ids-file', f5000, '-o', 'ndjson']],
        3,
      );
      record('batch of 5,000 ids (10 calls, concurrent)', ten, 'ms', 'one 500-id call', one, 'sequential would be 10x');
    }
    if (want('locker')) {
      const big = sb.info.examples.bigLockerUser;
      const env = envFor(sb, big);
      const page = await mustRun(node, [bin, 'locker', '--page-size', '50', '-o', 'ndjson'], { env });
      const all = await mustRun(node, [bin, 'locker', '--all', '-o', 'ndjson'], { env, rss: true });
      const lines = all.out.length >= 1e6 ? 'many' : all.out.split('\n').length - 1;
      log(`locker --all printed ${lines} lines`);
      record('locker -o ndjson --all, 20,000 releases: time', all.ms, 'ms', 'one 50-release page', page.ms, '400 pages');
      const base = await mustRun(node, ['-e', '0'], { rss: true });
      record('locker -o ndjson --all, 20,000 releases: peak memory', all.peakMb, 'MB', 'node -e 0', base.peakMb, 'goal < 150 MB');
    }
    if (want('bulk')) await benchBulk(sb);
    if (want('rate')) await benchRate();
  } finally {
    await sb.stop();
  }
  printTable();
  rmSync(work, { recursive: true, force: true });
}

/** Start-up rows: --version and --help against node -e 0; one read against a bare http.get. */
async function startupRows(sb, label, env) {
  const withEnv = (cmd) => [cmd[0], cmd[1], { env: { ...env, ...(cmd[2]?.env ?? {}) } }];
  if (want('startup')) {
    const [base, ver] = await sideBySide(withEnv([node, ['-e', '0']]), withEnv([node, [bin, '--version']]), 15);
    record(`start-up: mcat --version (median of 15)${label}`, ver, 'ms', 'node -e 0', base, 'goal <= 1.2x');
    await mustRun(...withEnv([node, [bin, '--help']])); // the run that fills the compile cache for help
    const [base2, help] = await sideBySide(withEnv([node, ['-e', '0']]), withEnv([node, [bin, '--help']]), 15);
    record(`start-up: mcat --help (median of 15)${label}`, help, 'ms', 'node -e 0', base2, '');
  }
  if (want('read')) {
    const id = sb.info.examples.releaseIds[0];
    const consumer = benchEnv.MCAT_CONSUMER_KEY;
    const url = `${sb.baseUrl}/1.2/release/details/batch?releaseIds=${id}&country=${benchEnv.MCAT_COUNTRY}&usageTypes=download&oauth_consumer_key=${consumer}`;
    const script = `require('http').get(${JSON.stringify(url)},r=>{let b='';r.on('data',d=>b+=d);r.on('end',()=>process.stdout.write(b))})`;
    const get = withEnv([node, ['-e', script]]);
    const read = withEnv([node, [bin, 'release', 'batch', String(id), '-o', 'json']]);
    // The first run of a command compiles it and writes the compile cache; every later run reads it.
    const first = await mustRun(...read);
    const firstNote = label ? 'cache written above' : `first run (writes the cache): ${fmt(first.ms)} ms`;
    const [base, warm] = await sideBySide(get, read, 15);
    record(`one catalogue read: mcat release batch (median of 15)${label}`, warm, 'ms', 'node http.get of the same URL', base, 'goal <= 1.5x');
    const [bare, warm2] = await sideBySide(withEnv([node, ['-e', '0']]), read, 15);
    record(`one catalogue read: mcat release batch (median of 15)${label}`, warm2, 'ms', 'node -e 0', bare, '');
    const cold = withEnv([node, read[1], { env: { MCAT_NO_COMPILE_CACHE: '1' } }]);
    const [base3, coldMs] = await sideBySide(get, cold, 5);
    record(`the same read with no compile cache (median of 5)${label}`, coldMs, 'ms', 'node http.get of the same URL', base3, firstNote);
  }
}

async function benchBulk(sb) {
  // A realistic network: the sandbox answers after 20 ms, a typical round trip to a regional
  // API (on loopback with no latency the run measures only the two processes' CPU).
  const slowDir = join(work, 'sandbox-latency');
  const lat = await startSandbox(slowDir, ['--faults', 'latency=20ms']);
  try {
    const env = envFor(lat);
    const list = JSON.parse((await mustRun(node, [bin, 'playlist', 'list', '--all', '-o', 'json'], { env })).out);
    let ids = list.playlists.playlist.map((p) => p.id);
    // enough playlists to spread 1,000 replaces over
    const need = 50 - ids.length;
    if (need > 0) {
      const creates = Array.from({ length: need }, (_, i) => JSON.stringify({ op: 'create', name: `bench ${i}` })).join('\n');
      const f = join(work, 'creates.ndjson');
      writeFileSync(f, creates + '\n');
      await mustRun(node, [bin, 'playlist', 'apply', f], { env });
      ids = JSON.parse((await mustRun(node, [bin, 'playlist', 'list', '--all', '-o', 'json'], { env })).out).playlists.playlist.map((p) => p.id);
    }
    const tracks = lat.info.examples.trackIds;
    const edit = (i) => ({
      op: 'replace',
      playlistId: ids[i % ids.length],
      name: `bench ${i}`,
      status: 'published',
      visibility: i % 2 ? 'public' : 'private',
      tracks: Array.from({ length: 10 }, (_, k) => ({ trackId: String(tracks[(i + k) % tracks.length]) })),
    });
    const file = join(work, 'edits.ndjson');
    writeFileSync(file, Array.from({ length: 1000 }, (_, i) => JSON.stringify(edit(i))).join('\n') + '\n');
    const bulk = await mustRun(node, [bin, 'playlist', 'apply', file, '--journal', join(work, 'j1')], { env });
    const bulkRate = 1000 / (bulk.ms / 1000);
    const one = await mustRun(node, [bin, 'playlist', 'apply', file, '--concurrency', '1', '--journal', join(work, 'j2')], { env });
    const oneRate = 1000 / (one.ms / 1000);
    // 100 separate invocations of `mcat playlist replace`
    const single = join(work, 'single.json');
    let sepMs = 0;
    for (let i = 0; i < 100; i++) {
      const e = edit(i);
      writeFileSync(single, JSON.stringify({ name: e.name, status: e.status, visibility: e.visibility, tracks: e.tracks }));
      sepMs += (await mustRun(node, [bin, 'playlist', 'replace', e.playlistId, '--from', single, '-o', 'json'], { env })).ms;
    }
    const sepRate = 100 / (sepMs / 1000);
    record('bulk apply, 1,000 replaces: edits/s', bulkRate, 'edits/s', '100 separate mcat playlist replace', sepRate, 'goal >= 100x');
    record('bulk apply, 1,000 replaces: edits/s', bulkRate, 'edits/s', 'same apply at --concurrency 1', oneRate, 'goal >= 5x');
    if (process.env.NODE_EXTRA_CA_CERTS) {
      // each separate invocation pays the CA bundle's ~33 ms too: the same comparison without it
      const clean = { ...env, NODE_EXTRA_CA_CERTS: null };
      const bulk2 = await mustRun(node, [bin, 'playlist', 'apply', file, '--journal', join(work, 'j3')], { env: clean });
      let sep2 = 0;
      for (let i = 0; i < 100; i++) {
        const e = edit(i);
        writeFileSync(single, JSON.stringify({ name: e.name, status: e.status, visibility: e.visibility, tracks: e.tracks }));
        sep2 += (await mustRun(node, [bin, 'playlist', 'replace', e.playlistId, '--from', single, '-o', 'json'], { env: clean })).ms;
      }
      record('bulk apply, 1,000 replaces: edits/s [no NODE_EXTRA_CA_CERTS]', 1000 / (bulk2.ms / 1000), 'edits/s', '100 separate mcat playlist replace', 100 / (sep2 / 1000), 'goal >= 100x');
    }
  } finally {
    await lat.stop();
  }
}

/** 1,000 replaces against `--rate-limit 50/s`: the client's limiter should keep to the rate, not hit it. */
async function benchRate() {
  const dir = join(work, 'sandbox-rate');
  // 50 playlists to spread the edits over, made before the limit is on
  const free = await startSandbox(dir);
  let ids;
  try {
    const env = envFor(free);
    const f = join(work, 'rate-creates.ndjson');
    writeFileSync(f, Array.from({ length: 50 }, (_, i) => JSON.stringify({ op: 'create', name: `rate ${i}` })).join('\n') + '\n');
    await mustRun(node, [bin, 'playlist', 'apply', f, '--journal', join(work, 'jr0')], { env });
    ids = JSON.parse((await mustRun(node, [bin, 'playlist', 'list', '--all', '-o', 'json'], { env })).out).playlists.playlist.map((p) => p.id);
  } finally {
    await free.stop();
  }
  const limited = await startSandbox(dir, ['--rate-limit', '50/s']);
  try {
    const env = envFor(limited);
    const tracks = limited.info.examples.trackIds;
    const file = join(work, 'rate-edits.ndjson');
    writeFileSync(file, Array.from({ length: 1000 }, (_, i) => JSON.stringify({ op: 'replace', playlistId: ids[i % ids.length], name: `rate ${i}`, tracks: [{ trackId: String(tracks[i % tracks.length]) }] })).join('\n') + '\n');
    const before = JSON.parse(execFileSync(node, [bin, 'sandbox', 'info', '--json', '--data', dir], { encoding: 'utf8' })).requests;
    const run = await mustRun(node, [bin, 'playlist', 'apply', file, '--journal', join(work, 'jr1')], { env: { ...env, NODE_EXTRA_CA_CERTS: null } });
    const after = JSON.parse(execFileSync(node, [bin, 'sandbox', 'info', '--json', '--data', dir], { encoding: 'utf8' })).requests;
    const total = after.total - before.total;
    const tooMany = (after.byStatus['429'] ?? 0) - (before.byStatus['429'] ?? 0);
    log(`rate: ${total} requests answered, ${tooMany} of them 429`);
    record('apply of 1,000 replaces at --rate-limit 50/s: time', run.ms, 'ms', 'ideal (1,000 / 50 a second)', 20_000, 'goal <= 1.15x');
    record('apply of 1,000 replaces at --rate-limit 50/s: answered 429', (100 * tooMany) / total, '%', 'goal', 5, 'goal < 1x');
  } finally {
    await limited.stop();
  }
}

function printTable() {
  const rows = [['benchmark', 'figure', 'baseline (same run)', 'ratio', 'goal']];
  for (const r of results) {
    rows.push([r.name, `${fmt(r.value)} ${r.unit}`, `${r.baselineName}: ${fmt(r.baseline)} ${r.unit}`, `${r.ratio.toFixed(2)}x`, r.goal]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r) => '| ' + r.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
  const out = [line(rows[0]), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...rows.slice(1).map(line)];
  process.stdout.write(out.join('\n') + '\n');
}

main().catch((e) => {
  process.stderr.write(`bench: failed: ${e.stack ?? e}\n`);
  process.exitCode = 1;
});

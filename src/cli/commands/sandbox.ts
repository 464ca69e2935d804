import type { Command } from 'commander';
import { notice } from '../context';
import { print } from '../../output/streams';
import { UsageError } from '../errors';

interface StartFlags {
  host: string;
  port: string;
  data?: string;
  seed?: string;
  faults?: string;
  rateLimit?: string;
  limits?: string;
  log?: string;
}

function wholeNumber(value: string, flag: string, max: number): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) > max) throw new UsageError(`${flag} must be a whole number from 0 to ${max}, got '${value}'`);
  return Number(value);
}

async function dataDirOf(data: string | undefined, mustExist = false): Promise<string> {
  if (data !== undefined) {
    if (data.trim() === '') throw new UsageError('--data must name a directory');
    if (mustExist) {
      const { existsSync } = await import('node:fs');
      if (!existsSync(data)) throw new UsageError(`sandbox data directory ${data} does not exist`, `start a sandbox there first: mcat sandbox start --data ${data}`);
    }
    return data;
  }
  const { defaultSandboxDir } = await import('../../sandbox/index');
  return defaultSandboxDir(process.env);
}

export function registerSandbox(program: Command): void {
  const sandbox = program
    .command('sandbox')
    .description('the built-in sandbox: a local, stateful implementation of the whole API with demo data');

  sandbox
    .command('start')
    .description('run the sandbox server in the foreground (Ctrl-C stops it)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0: any free port)', '8080')
    .option('--data <dir>', 'data directory (default: MCAT_SANDBOX_DIR or the user data directory)')
    .option('--seed <n>', 'seed of the demo data (a new seed re-initialises the data dir)')
    .option('--faults <spec>', 'inject faults, e.g. latency=200ms,error=0.1,429=0.05,retryafter=2,reset=0.02,truncate=0.02,slow=0.02')
    .option('--rate-limit <n/min>', 'refuse requests past N per minute per key (429 with Retry-After)')
    .option('--log <file>', 'append one NDJSON line per request: time, method, path, status, duration, masked consumer key')
    .option('--limits <spec>', 'storage bounds (413 past them), e.g. body=2MiB,tracks=5000,playlists=1000,groups=100,group-size=1000,storage=20MiB')
    .addHelpText(
      'after',
      '\nExamples:\n  mcat sandbox start --port 0 --data ./sandbox-data\n  mcat sandbox start --port 0 --faults latency=50ms,error=0.05 --rate-limit 600/min\n  mcat sandbox start --port 0 --limits tracks=500,storage=5MiB\n  mcat sandbox start --port 0 --log requests.ndjson',
    )
    .action(async (flags: StartFlags) => {
      const port = wholeNumber(flags.port, '--port', 65535);
      if (flags.log !== undefined && flags.log.trim() === '') throw new UsageError('--log must name a file');
      const seed = flags.seed === undefined ? undefined : wholeNumber(flags.seed, '--seed', 2 ** 31 - 1);
      const dataDir = await dataDirOf(flags.data);
      const { parseFaults, parseRateLimit, parseLimits } = await import('../../sandbox/index');
      try {
        parseFaults(flags.faults);
        parseRateLimit(flags.rateLimit);
        parseLimits(flags.limits);
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
      const { startSandbox } = await import('../../sandbox/index');
      const t0 = Date.now();
      let sb;
      try {
        sb = await startSandbox({ dataDir, host: flags.host, port, seed, faults: flags.faults, rateLimit: flags.rateLimit, limits: flags.limits, log: flags.log });
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE') throw new UsageError(`port ${port} on ${flags.host} is already in use`, 'choose another with --port, or --port 0 for any free port');
        if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`cannot listen on host '${flags.host}'`);
        throw e;
      }
      const info = sb.info;
      const lines = [
        `mcat sandbox listening on ${sb.baseUrl} (data ${dataDir}, seed ${info.seed}, ready in ${Date.now() - t0} ms)`,
        ...info.consumers.map((c) => `  consumer key ${c.key}  secret ${c.secret}  countries ${c.countries.join(',')}`),
        ...info.users.map((u) => `  user ${u.userId}  token ${u.token}  token secret ${u.tokenSecret}${u.userId === info.examples.lockerUser ? '  (locker)' : u.userId === info.examples.bigLockerUser ? '  (big locker)' : u.userId === info.examples.emptyUser ? '  (empty)' : ''}`),
        flags.faults ? `  faults: ${flags.faults}` : '',
        flags.rateLimit ? `  rate limit: ${flags.rateLimit}` : '',
        flags.limits ? `  limits: ${flags.limits}` : '',
        flags.log ? `  request log: ${flags.log}` : '',
        'Press Ctrl-C to stop.',
      ].filter(Boolean);
      // Ctrl-C is listened for before the line that says to press it, so one pressed at once still stops cleanly
      const stopped = new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      for (const line of lines) notice(line);
      await stopped;
      await sb.close();
      notice('mcat sandbox stopped');
    });

  sandbox
    .command('info')
    .description('demo credentials and example ids of a sandbox data dir (and its base URL if a server runs there)')
    .option('--data <dir>', 'data directory (default: MCAT_SANDBOX_DIR or the user data directory)')
    .addHelpText(
      'after',
      '\nWith --json (or -o json, or --jq PROGRAM) the information is printed as JSON.\n\nExamples:\n  mcat sandbox info\n  mcat sandbox info --json | jq -r .examples.trackIds[0]',
    )
    .action(async (flags: { data?: string }, cmd: Command) => {
      const dataDir = await dataDirOf(flags.data, true);
      const { getSandboxInfo } = await import('../../sandbox/index');
      const info = await getSandboxInfo(dataDir);
      const { printJson, wantsJson } = await import('../json-out');
      if (wantsJson(cmd)) return printJson(cmd, info);
      const ex = info.examples;
      const out = [
        `data dir     ${info.dataDir}`,
        `seed         ${info.seed}`,
        `server       ${info.baseUrl ?? 'not running (start one with: mcat sandbox start)'}`,
        ...(info.requests
          ? [`requests     ${info.requests.total} answered${Object.keys(info.requests.byStatus).length ? ` (${Object.entries(info.requests.byStatus).map(([s, n]) => `${s}: ${n}`).join(', ')})` : ''}`]
          : []),
        'consumers',
        ...info.consumers.map((c) => `  ${c.key}  secret ${c.secret}  countries ${c.countries.join(',')}`),
        'users',
        ...info.users.map((u) => `  ${u.userId}  token ${u.token}  token secret ${u.tokenSecret}`),
        'examples',
        `  locker user ${ex.lockerUser}, big locker user ${ex.bigLockerUser}, empty user ${ex.emptyUser}`,
        `  artists: ${ex.artistWithManyReleases} (many releases), ${ex.artistWithNoReleases} (none)`,
        `  releases: ${ex.releaseIds.join(', ')}; unknown ${ex.unknownReleaseId}; unlicensed ${ex.unlicensedReleaseId}`,
        `  tracks: ${ex.trackIds.join(', ')}`,
        `  playlists: ${ex.playlistIds.join(', ')}; group ${ex.groupId}`,
      ];
      await print(out.join('\n') + '\n');
    });

  sandbox
    .command('reset')
    .description('put the demo state back: playlists, groups, download counters')
    .option('--data <dir>', 'data directory (default: MCAT_SANDBOX_DIR or the user data directory)')
    .addHelpText('after', '\nExamples:\n  mcat sandbox reset')
    .action(async (flags: { data?: string }) => {
      const dataDir = await dataDirOf(flags.data, true);
      const { resetSandbox } = await import('../../sandbox/index');
      await resetSandbox(dataDir);
      notice(`mcat sandbox: ${dataDir} reset to its demo state`);
    });
}

import type { Command } from 'commander';
import { say } from '../context';
import { print } from '../../output/streams';
import { UsageError } from '../../client/errors';

interface StartFlags {
  host: string;
  port: string;
  data?: string;
  seed?: string;
  faults?: string;
  rateLimit?: string;
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
    .addHelpText('after', '\nExamples:\n  mcat sandbox start\n  mcat sandbox start --port 0 --data /tmp/sb\n  mcat sandbox start --faults latency=50ms,error=0.05 --rate-limit 600/min')
    .action(async (flags: StartFlags) => {
      const port = wholeNumber(flags.port, '--port', 65535);
      const seed = flags.seed === undefined ? undefined : wholeNumber(flags.seed, '--seed', 2 ** 31 - 1);
      const dataDir = await dataDirOf(flags.data);
      const { parseFaults, parseRateLimit } = await import('../../sandbox/index');
      try {
        parseFaults(flags.faults);
        parseRateLimit(flags.rateLimit);
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
      const { startSandbox } = await import('../../sandbox/index');
      const t0 = Date.now();
      let sb;
      try {
        sb = await startSandbox({ dataDir, host: flags.host, port, seed, faults: flags.faults, rateLimit: flags.rateLimit });
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
        'Press Ctrl-C to stop.',
      ].filter(Boolean);
      for (const line of lines) say(line);
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      await sb.close();
      say('mcat sandbox stopped');
    });

  sandbox
    .command('info')
    .description('demo credentials and example ids of a sandbox data dir (and its base URL if a server runs there)')
    .option('--json', 'print the information as JSON on standard output')
    .option('--data <dir>', 'data directory (default: MCAT_SANDBOX_DIR or the user data directory)')
    .action(async (flags: { json?: boolean; data?: string }) => {
      const dataDir = await dataDirOf(flags.data, true);
      const { getSandboxInfo } = await import('../../sandbox/index');
      const info = await getSandboxInfo(dataDir);
      if (flags.json) {
        await print(JSON.stringify(info, null, 2) + '\n');
        return;
      }
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
    .action(async (flags: { data?: string }) => {
      const dataDir = await dataDirOf(flags.data, true);
      const { resetSandbox } = await import('../../sandbox/index');
      await resetSandbox(dataDir);
      say(`mcat sandbox: ${dataDir} reset to its demo state`);
    });
}

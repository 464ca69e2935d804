// `mcat sandbox start`: the sandbox server in the foreground until Ctrl-C.
import { UsageError } from '../../errors';
import { defineCommand, type CommandContext } from '../../command';
import { notice } from '../../context';
import { DATA_OPTION, dataDirOf } from './data-dir';

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

export default defineCommand<StartFlags>({
  name: 'start',
  description: 'run the sandbox server in the foreground (Ctrl-C stops it)',
  options: [
    { flags: '--host <host>', description: 'address to listen on', default: '127.0.0.1' },
    { flags: '--port <port>', description: 'port to listen on (0: any free port)', default: '8080' },
    DATA_OPTION,
    { flags: '--seed <n>', description: 'seed of the demo data (a new seed re-initialises the data dir)' },
    { flags: '--faults <spec>', description: 'inject faults, e.g. latency=200ms,error=0.1,429=0.05,retryafter=2,reset=0.02,truncate=0.02,slow=0.02' },
    { flags: '--rate-limit <n/min>', description: 'refuse requests past N per key a minute (N/min), or a second (N/s) or an hour (N/h): 429 with Retry-After' },
    { flags: '--log <file>', description: 'append one NDJSON line per request: time, method, path, status, duration, masked consumer key' },
    { flags: '--limits <spec>', description: 'storage bounds (413 past them), e.g. body=2MiB,tracks=5000,playlists=1000,groups=100,group-size=1000,storage=20MiB' },
  ],
  examples: [
    'mcat sandbox start --port 0 --data ./sandbox-data',
    'mcat sandbox start --port 0 --faults latency=50ms,error=0.05 --rate-limit 600/min',
    'mcat sandbox start --port 0 --limits tracks=500,storage=5MiB',
    'mcat sandbox start --port 0 --log requests.ndjson',
  ],
  run: runStart,
});

function wholeNumber(value: string, flag: string, max: number): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) > max) throw new UsageError(`${flag} must be a whole number from 0 to ${max}, got '${value}'`);
  return Number(value);
}

async function runStart(flags: StartFlags, ctx: CommandContext): Promise<void> {
  const port = wholeNumber(flags.port, '--port', 65535);
  if (flags.log !== undefined && flags.log.trim() === '') throw new UsageError('--log must name a file');
  const seed = flags.seed === undefined ? undefined : wholeNumber(flags.seed, '--seed', 2 ** 31 - 1);
  const dataDir = await dataDirOf(ctx.env, flags.data);
  const { parseFaults, parseRateLimit, parseLimits } = await import('../../../sandbox/index');
  try {
    parseFaults(flags.faults);
    parseRateLimit(flags.rateLimit);
    parseLimits(flags.limits);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  // an empty host would listen on every interface and leave no address to advertise
  if (flags.host.trim() === '') throw new UsageError("cannot listen on host '': give an address (127.0.0.1, the default)");
  const { startSandbox } = await import('../../../sandbox/index');
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
    const off = ctx.onInterrupt(() => {
      off();
      resolve();
    });
  });
  for (const line of lines) notice(line);
  await stopped;
  await sb.close();
  notice('mcat sandbox stopped');
}

// The sandbox's public face: start a server on a data dir, describe it, find a running one, reset it.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { alive, parseRecord, removeDeadRecords, serverRecords } from './records';
// the shapes partners see through mcat/sandbox (public.ts declares them on its own, for its .d.ts)
import type { SandboxConsumer, SandboxExamples, SandboxUser } from './public';

export interface SandboxOptions {
  dataDir: string;
  host?: string;
  port?: number;
  seed?: number;
  faults?: string;
  rateLimit?: string;
  /** storage and body bounds: a `--limits` spec or the values themselves (others keep their defaults) */
  limits?: string | Partial<import('./limits').Limits>;
  /** append one NDJSON line per request to this file (0600; never through a symlink) */
  log?: string;
  quiet?: boolean;
  /**
   * Write dataDir/server.json so other mcat processes find this server (default true). A sandbox
   * started inside one short command should pass false: others would find it and then lose it
   * when that command exits.
   */
  advertise?: boolean;
}

export interface SandboxInfo {
  dataDir: string;
  seed: number;
  baseUrl?: string;
  consumers: SandboxConsumer[];
  users: SandboxUser[];
  examples: SandboxExamples;
  /** a running server's requests answered since it started, by HTTP status */
  requests?: { total: number; byStatus: Record<string, number> };
}

export interface RunningSandbox {
  baseUrl: string;
  info: SandboxInfo;
  close(): Promise<void>;
}

const SERVER_FILE = 'server.json';

export function defaultSandboxDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MCAT_SANDBOX_DIR) return env.MCAT_SANDBOX_DIR;
  const data = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share');
  return join(data, 'mcat', 'sandbox');
}

function describe(dataDir: string, seed: number, demo: import('./demo-data').DemoData, baseUrl?: string): SandboxInfo {
  const info: SandboxInfo = {
    dataDir,
    seed,
    consumers: demo.consumers.map((c) => ({ key: c.key, secret: c.secret, countries: [...c.countries] })),
    users: demo.users.map((u) => ({ ...u })),
    examples: demo.examples(),
  };
  if (baseUrl) info.baseUrl = baseUrl;
  return info;
}

export async function startSandbox(opts: SandboxOptions): Promise<RunningSandbox> {
  const { parseFaults, parseRateLimit } = await import('./faults');
  const faults = parseFaults(opts.faults);
  const rateLimit = parseRateLimit(opts.rateLimit);
  const { parseLimits } = await import('./limits');
  const limits = typeof opts.limits === 'string' || opts.limits === undefined ? parseLimits(opts.limits) : parseLimits(undefined, opts.limits);
  const { writePrivateFile } = await import('./files');
  const { RequestLog } = await import('./request-log');
  const { DB_FILE, Store } = await import('./store');
  const { DemoData } = await import('./demo-data');
  const { startServer } = await import('./server');
  // Every path is checked (a planted symlink, another owner) before anything is opened through
  // SQLite: a refusal names the path whatever the state of the native module.
  const { secureDataDir, secureDbFiles } = await import('./files');
  secureDataDir(opts.dataDir);
  secureDbFiles(join(opts.dataDir, DB_FILE));
  const log = opts.log !== undefined ? RequestLog.open(opts.log) : undefined;
  let share: import('./server-lock').DataDirShare | undefined;
  try {
    if (opts.advertise !== false) {
      // joined before the store is opened: its --seed may re-initialise the data under another server
      const { shareDataDir } = await import('./server-lock');
      share = shareDataDir(opts.dataDir);
    }
  } catch (e) {
    log?.close();
    throw e;
  }
  const unlock = () => share?.release();
  let store: import('./store').Store;
  try {
    store = Store.open(opts.dataDir, opts.seed, share ? { beforeReseed: (seed) => share.beforeReseed(seed) } : {});
  } catch (e) {
    log?.close();
    unlock();
    throw e;
  }
  const demo = new DemoData(store.seed);
  let running;
  try {
    running = await startServer({
      host: opts.host ?? '127.0.0.1',
      port: opts.port ?? 0,
      demo,
      store,
      faults,
      rateLimit,
      limits,
      log,
      dataDir: opts.dataDir,
      info: (baseUrl) => describe(opts.dataDir, store.seed, demo, baseUrl),
    });
  } catch (e) {
    log?.close();
    store.close();
    unlock();
    throw e;
  }
  const { baseUrl } = running;
  const serverFile = join(opts.dataDir, SERVER_FILE);
  const record = JSON.stringify({ baseUrl, pid: process.pid, seed: store.seed }) + '\n';
  const ownFile = join(opts.dataDir, `server.${process.pid}.${new URL(baseUrl).port || '80'}.json`);
  if (opts.advertise !== false) {
    // this server's own record first (the others' readers fall back on it), then server.json
    removeDeadRecords(opts.dataDir);
    writePrivateFile(ownFile, record);
    writePrivateFile(serverFile, record);
  }
  let closed: Promise<void> | undefined;
  return {
    baseUrl,
    info: describe(opts.dataDir, store.seed, demo, baseUrl),
    close: () => {
      closed ??= (async () => {
        await running.close();
        log?.close();
        store.close();
        unlock();
        if (opts.advertise === false) return;
        rmSync(ownFile, { force: true });
        // another server may have taken the file over since: change it only while it names us,
        // and then to another server still serving the folder (named by its own record), if any
        try {
          const cur = JSON.parse(readFileSync(serverFile, 'utf8'));
          if (cur.pid === process.pid && cur.baseUrl === baseUrl) {
            const other = serverRecords(opts.dataDir).find((r) => r.baseUrl !== baseUrl && alive(r.pid));
            if (other) writePrivateFile(serverFile, JSON.stringify({ baseUrl: other.baseUrl, pid: other.pid, ...(other.seed !== undefined ? { seed: other.seed } : {}) }) + '\n');
            else rmSync(serverFile, { force: true });
          }
        } catch {
          // gone already
        }
      })();
      return closed;
    },
  };
}

/**
 * What dataDir holds: demo credentials, example ids, and the server running there if one answers.
 * `running`: that server as runningSandbox() found it in this run (not asked again).
 */
export async function getSandboxInfo(dataDir: string, running?: RunningServer): Promise<SandboxInfo> {
  const { DemoData } = await import('./demo-data');
  running ??= await runningSandbox(dataDir);
  const baseUrl = running?.baseUrl;
  // A running server says its seed in server.json: no need to open its store (nor to load the
  // SQLite module, which a CLI under another Node than the server's may not be able to load)
  let seed = running?.seed;
  if (seed === undefined) {
    const { Store } = await import('./store');
    const store = Store.open(dataDir);
    seed = store.seed;
    store.close();
  }
  const info = describe(dataDir, seed, new DemoData(seed), baseUrl);
  if (baseUrl) {
    const live = await getJson(`${baseUrl}/__sandbox/info`, 1000);
    const requests = (live as { requests?: SandboxInfo['requests'] } | undefined)?.requests;
    if (requests) info.requests = requests;
  }
  return info;
}

/** GET a control route: its status and JSON body, or undefined when it does not answer in time. */
function control(url: string, timeoutMs: number): Promise<{ status: number; body: unknown } | undefined> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (v: { status: number; body: unknown } | undefined) => {
      if (!done) {
        done = true;
        resolve(v);
      }
    };
    try {
      const req = request(url, { method: 'GET', agent: false, timeout: timeoutMs }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => {
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          finish({ status: res.statusCode ?? 0, body });
        });
        res.on('error', () => finish(undefined));
      });
      req.on('timeout', () => {
        req.destroy();
        finish(undefined);
      });
      req.on('error', () => finish(undefined));
      req.end();
      setTimeout(() => {
        req.destroy();
        finish(undefined);
      }, timeoutMs).unref();
    } catch {
      finish(undefined);
    }
  });
}

async function health(baseUrl: string, timeoutMs: number): Promise<boolean> {
  return (await control(`${baseUrl}/__sandbox/health`, timeoutMs))?.status === 200;
}

async function getJson(url: string, timeoutMs: number): Promise<unknown> {
  const r = await control(url, timeoutMs);
  return r?.status === 200 ? r.body : undefined;
}

export async function findRunningSandbox(dataDir: string): Promise<string | undefined> {
  return (await runningSandbox(dataDir))?.baseUrl;
}

/** A server running on a data dir: its URL and (newer servers) its seed. */
export interface RunningServer {
  baseUrl: string;
  seed?: number;
}

/**
 * How long the server server.json names has to answer its health check. A server that is gone
 * refuses the connection at once; one that is there may be busy (serving other mcat processes,
 * its store's writes are synchronous) or this process may not get the CPU for a while (a loaded
 * machine: the timer then runs before the answer that came in time is read). Taking a slow server
 * for a gone one (300 ms, until this) started a second sandbox in-process on the same data dir,
 * without the running one's faults or rate limit, or failed where the CLI cannot open the store
 * (SQLite's module built for another Node): test/e2e/sandbox-busy.test.ts.
 */
const HEALTH_TIMEOUT_MS = 3000;

/**
 * The server running on dataDir, if one answers: the one server.json names, else another that
 * still serves the folder (several may), newest first. Its URL and (newer servers) its seed.
 */
export async function runningSandbox(dataDir: string): Promise<RunningServer | undefined> {
  const file = join(dataDir, SERVER_FILE);
  const named = existsSync(file) ? parseRecord(file) : undefined;
  if (named && (await health(named.baseUrl, HEALTH_TIMEOUT_MS))) return { baseUrl: named.baseUrl, seed: named.seed };
  for (const r of serverRecords(dataDir)) {
    if (r.baseUrl === named?.baseUrl || !alive(r.pid)) continue;
    if (await health(r.baseUrl, HEALTH_TIMEOUT_MS)) return { baseUrl: r.baseUrl, seed: r.seed };
  }
  return undefined;
}

export async function resetSandbox(dataDir: string): Promise<void> {
  const { Store } = await import('./store');
  const store = Store.open(dataDir);
  try {
    store.reset();
  } finally {
    store.close();
  }
}

// The CLI checks --faults and --rate-limit before starting a server: one entry point for all of it.
export { parseFaults, parseRateLimit } from './faults';
export { parseLimits, DEFAULT_LIMITS, type Limits } from './limits';
export { SandboxFileError } from './files';

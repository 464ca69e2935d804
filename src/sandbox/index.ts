// The sandbox's public face: start a server on a data dir, describe it, find a running one, reset it.
import { existsSync, readFileSync, rmSync, writeFileSync, mkdirSync, renameSync } from 'node:fs';
import { request } from 'node:http';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface SandboxOptions {
  dataDir: string;
  host?: string;
  port?: number;
  seed?: number;
  faults?: string;
  rateLimit?: string;
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
  consumers: { key: string; secret: string; countries: string[] }[];
  users: { userId: string; token: string; tokenSecret: string }[];
  examples: {
    lockerUser: string;
    bigLockerUser: string;
    emptyUser: string;
    artistWithManyReleases: number;
    artistWithNoReleases: number;
    releaseIds: number[];
    unknownReleaseId: number;
    unlicensedReleaseId: number;
    trackIds: number[];
    playlistIds: string[];
    groupId: string;
  };
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
  const { Store } = await import('./store');
  const { DemoData } = await import('./demo-data');
  const { startServer } = await import('./server');
  const store = Store.open(opts.dataDir, opts.seed);
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
      dataDir: opts.dataDir,
      info: (baseUrl) => describe(opts.dataDir, store.seed, demo, baseUrl),
    });
  } catch (e) {
    store.close();
    throw e;
  }
  const { baseUrl } = running;
  const serverFile = join(opts.dataDir, SERVER_FILE);
  if (opts.advertise !== false) {
    const tmp = `${serverFile}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ baseUrl, pid: process.pid }) + '\n');
    renameSync(tmp, serverFile);
  }
  let closed: Promise<void> | undefined;
  return {
    baseUrl,
    info: describe(opts.dataDir, store.seed, demo, baseUrl),
    close: () => {
      closed ??= (async () => {
        await running.close();
        store.close();
        // another server may have taken the file over since: remove only our own
        try {
          const cur = JSON.parse(readFileSync(serverFile, 'utf8'));
          if (cur.pid === process.pid && cur.baseUrl === baseUrl) rmSync(serverFile, { force: true });
        } catch {
          // gone already
        }
      })();
      return closed;
    },
  };
}

export async function getSandboxInfo(dataDir: string): Promise<SandboxInfo> {
  const { Store } = await import('./store');
  const { DemoData } = await import('./demo-data');
  const baseUrl = await findRunningSandbox(dataDir);
  const store = Store.open(dataDir);
  const seed = store.seed;
  store.close();
  const info = describe(dataDir, seed, new DemoData(seed), baseUrl);
  if (baseUrl) {
    const live = await control(`${baseUrl}/__sandbox/info`, 1000);
    const requests = (live?.status === 200 ? (live.body as { requests?: SandboxInfo['requests'] }) : undefined)?.requests;
    if (requests) info.requests = requests;
  }
  return info;
}

async function health(baseUrl: string, timeoutMs: number): Promise<boolean> {
  return (await control(`${baseUrl}/__sandbox/health`, timeoutMs))?.status === 200;
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

export async function findRunningSandbox(dataDir: string): Promise<string | undefined> {
  const file = join(dataDir, SERVER_FILE);
  if (!existsSync(file)) return undefined;
  let baseUrl: string | undefined;
  try {
    const j = JSON.parse(readFileSync(file, 'utf8'));
    baseUrl = typeof j.baseUrl === 'string' ? j.baseUrl : undefined;
  } catch {
    return undefined;
  }
  if (!baseUrl) return undefined;
  return (await health(baseUrl, 300)) ? baseUrl : undefined;
}

export async function resetSandbox(dataDir: string): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
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

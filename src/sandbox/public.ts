// The sandbox for partners' own test suites: `import { startSandbox } from 'mcat/sandbox'`.
// Built on its own (dist/sandbox-api.mjs and .cjs, with dist/sandbox-api.d.ts made from this
// file alone), so it loads nothing of the CLI. Its types are declared here, not imported, so that
// the declaration file stands alone; the compiler checks them against the implementation.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox as start } from './index';

export interface StartSandboxOptions {
  /** port to listen on; default 0, any free port */
  port?: number;
  /** address to listen on; default 127.0.0.1 */
  host?: string;
  /** where the state (playlists, groups, download counters) lives; default a fresh temporary directory that stop() removes */
  dataDir?: string;
  /** seed of the demo data; default 1 */
  seed?: number;
  /** fault injection, e.g. 'latency=50ms,error=0.1,429=0.05' */
  faults?: string;
  /** a rate limit per consumer key, e.g. '600/min' */
  rateLimit?: string;
  /** storage bounds, e.g. 'tracks=500,storage=5MiB' */
  limits?: string;
  /** append one NDJSON line per request to this file */
  log?: string;
}

export interface SandboxConsumer {
  key: string;
  secret: string;
  countries: string[];
}

export interface SandboxUser {
  userId: string;
  token: string;
  tokenSecret: string;
}

/** Ready-made credentials: a consumer entitled to several countries, and the user who has a locker, playlists and a group. */
export interface SandboxCredentials {
  consumerKey: string;
  consumerSecret: string;
  token: string;
  tokenSecret: string;
  userId: string;
  country: string;
}

export interface SandboxExamples {
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
}

export interface Sandbox {
  /** e.g. http://127.0.0.1:40123 */
  baseUrl: string;
  credentials: SandboxCredentials;
  consumers: SandboxConsumer[];
  users: SandboxUser[];
  examples: SandboxExamples;
  /** stops the server (and removes the temporary data dir it made) */
  stop(): Promise<void>;
}

/** Starts a sandbox on 127.0.0.1 and a free port; resolves once it answers. */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<Sandbox> {
  const temporary = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'mcat-sandbox-'));
  let sb;
  try {
    sb = await start({ ...options, dataDir, host: options.host ?? '127.0.0.1', port: options.port ?? 0, advertise: !temporary });
  } catch (e) {
    if (temporary) rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  const { info } = sb;
  const consumer = info.consumers.find((c) => c.countries.length > 1) ?? info.consumers[0];
  const user = info.users.find((u) => u.userId === info.examples.lockerUser) ?? info.users[0];
  let stopped: Promise<void> | undefined;
  return {
    baseUrl: sb.baseUrl,
    credentials: {
      consumerKey: consumer.key,
      consumerSecret: consumer.secret,
      token: user.token,
      tokenSecret: user.tokenSecret,
      userId: user.userId,
      country: consumer.countries[0],
    },
    consumers: info.consumers,
    users: info.users,
    examples: info.examples,
    stop: () => {
      stopped ??= sb.close().then(() => {
        if (temporary) rmSync(dataDir, { recursive: true, force: true });
      });
      return stopped;
    },
  };
}

// A sandbox on 127.0.0.1 and a free port, with a fresh temp data dir removed on close.
import { afterEach } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index';

export async function startTestSandbox(opts: Omit<SandboxOptions, 'dataDir'> = {}): Promise<RunningSandbox & { dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mcat-sandbox-'));
  let sb: RunningSandbox;
  try {
    sb = await startSandbox({ dataDir, host: '127.0.0.1', port: 0, quiet: true, ...opts });
  } catch (e) {
    rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  return {
    baseUrl: sb.baseUrl,
    info: sb.info,
    dataDir,
    close: async () => {
      await sb.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A `sandbox(opts)` for tests that need their own sandbox each: every one is closed after its test. */
export function sandboxPerTest(): (opts?: Parameters<typeof startTestSandbox>[0]) => Promise<RunningSandbox & { dataDir: string }> {
  const open: (RunningSandbox & { dataDir: string })[] = [];
  afterEach(async () => {
    while (open.length) await open.pop()!.close();
  });
  return async (opts = {}) => {
    const sb = await startTestSandbox(opts);
    open.push(sb);
    return sb;
  };
}

/** MCAT_* settings naming a sandbox's multi-country consumer and its locker user (at baseUrl, by default the sandbox's own). */
export function sandboxProfileEnv(sb: { baseUrl: string; info: RunningSandbox['info'] }, baseUrl = sb.baseUrl): Record<string, string> {
  const consumer = sb.info.consumers.find((c) => c.countries.length > 1)!;
  const user = sb.info.users.find((u) => u.userId === sb.info.examples.lockerUser)!;
  return {
    MCAT_BASE_URL: baseUrl,
    MCAT_CONSUMER_KEY: consumer.key,
    MCAT_CONSUMER_SECRET: consumer.secret,
    MCAT_TOKEN: user.token,
    MCAT_TOKEN_SECRET: user.tokenSecret,
    MCAT_COUNTRY: consumer.countries[0],
    MCAT_USER_ID: user.userId,
  };
}

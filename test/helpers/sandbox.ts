// A sandbox on 127.0.0.1 and a free port, with a fresh temp data dir removed on close.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index';

export async function startTestSandbox(opts: { seed?: number; faults?: string; rateLimit?: string } = {}): Promise<RunningSandbox & { dataDir: string }> {
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

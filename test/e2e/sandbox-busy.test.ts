// A running sandbox that is slow to answer (busy serving other mcat processes, or on a loaded
// machine) is still the running sandbox: mcat uses it, never a second in-process sandbox on the
// same data dir (its own port, none of the running server's faults or rate limit), and never
// opens the store the server has open (which a CLI under another Node than the server's cannot:
// seen as 'SQLite module built for another Node.js version' when four shards started at once).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa, type ResultPromise } from 'execa';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binPath, mcat, mcatEnv, repoRoot } from '../helpers/mcat';

const dataDir = mkdtempSync(join(tmpdir(), 'mcat-busy-sandbox-'));
let server: ResultPromise;
let baseUrl: string;

beforeAll(async () => {
  // the server in a process of its own (on the suite's Node, as the tests' sandboxes), so that it
  // can be stopped (SIGSTOP) and answer late
  server = execa(process.execPath, [binPath, 'sandbox', 'start', '--port', '0', '--data', dataDir], {
    env: mcatEnv() as Record<string, string>,
    extendEnv: true,
    cwd: repoRoot,
    reject: false,
    stdin: 'ignore',
  });
  baseUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stderr!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]);
    });
    void server.then((r) => reject(new Error(`sandbox exited: ${String(r.stderr)}`)));
  });
});
afterAll(async () => {
  server?.kill('SIGCONT');
  server?.kill('SIGTERM');
  await server;
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs mcat while the server does not answer for `ms` (stopped: connections wait in its backlog). */
async function whileStopped(ms: number, args: string[]) {
  server.kill('SIGSTOP');
  const cont = setTimeout(() => server.kill('SIGCONT'), ms);
  try {
    return await mcat(args, { sandboxDir: dataDir, timeout: 30_000 });
  } finally {
    clearTimeout(cont);
    server.kill('SIGCONT');
  }
}

describe('a running sandbox slow to answer', () => {
  it('is used (the one server.json names): no second sandbox started, no store opened', async () => {
    const r = await whileStopped(1500, ['release', 'batch', '100001', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe(`mcat: using the built-in sandbox (demo data) at ${baseUrl}\n`);
    expect(JSON.parse(r.stdout).items.releases).toHaveLength(1);
  });

  it("'sandbox info' names it", async () => {
    const r = await whileStopped(1500, ['sandbox', 'info', '--json', '--data', dataDir]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).baseUrl).toBe(baseUrl);
  });

  it("'auth status' names it as the sandbox profile's base URL", async () => {
    const r = await whileStopped(1500, ['auth', 'status', '--no-verify', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(JSON.stringify(baseUrl));
  });
});

// Sandbox processes for the contract tests: the real `sandbox` command (src/cli/commands/sandbox/),
// run by runCli in a process of its own, bundled with esbuild, so the tests need no full CLI build.
import { build } from 'esbuild';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const outDir = join(root, 'node_modules/.cache/mcat-contract');
let built: Promise<string> | undefined;

export function sandboxCli(): Promise<string> {
  built ??= (async () => {
    mkdirSync(outDir, { recursive: true });
    const outfile = join(outDir, `sandbox-cli-${process.pid}.mjs`);
    await build({
      stdin: {
        contents: `
          import { runCli } from './src/cli/main';
          import { processContext } from './src/launcher/process-context';
          process.exitCode = await runCli(process.argv.slice(2), processContext());
        `,
        resolveDir: root,
        loader: 'ts',
      },
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      external: ['better-sqlite3'],
      banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
      logLevel: 'error',
    });
    return outfile;
  })();
  return built;
}

export interface SandboxProcess {
  child: ChildProcess;
  baseUrl: string;
  stderr(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `mcat sandbox start --port 0 --data DIR ...` in a child process; resolves once it listens. */
export async function startProcess(dataDir: string, extra: string[] = []): Promise<SandboxProcess> {
  const cli = await sandboxCli();
  const child = spawn(process.execPath, [cli, 'sandbox', 'start', '--port', '0', '--data', dataDir, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  const baseUrl = await new Promise<string>((res, rej) => {
    child.stderr!.on('data', (d) => {
      err += d;
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m) res(m[1]);
    });
    child.on('exit', (code) => rej(new Error(`sandbox exited ${code}: ${err}`)));
  });
  return {
    child,
    baseUrl,
    stderr: () => err,
    stop: (signal = 'SIGTERM') =>
      new Promise((res) => {
        if (child.exitCode !== null) return res(child.exitCode);
        child.once('exit', (code) => res(code));
        child.kill(signal);
      }),
  };
}

/** `mcat sandbox <args>` to completion. */
export async function runCli(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = await sandboxCli();
  return new Promise((res) => {
    const child = spawn(process.execPath, [cli, 'sandbox', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => res({ code, stdout, stderr }));
  });
}

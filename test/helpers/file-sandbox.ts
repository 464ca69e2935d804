// One sandbox for all the tests of a file: started before them, closed after them, with `run`,
// the CLI against it: the built bin/mcat, or the runner given (mcatIn: in-process). (The set-up
// each e2e file used to write out for itself.)
import { afterAll, beforeAll } from 'vitest';
import { mcat } from './mcat';
import { startTestSandbox } from './sandbox';

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;

type Runner = typeof mcat;

export function sandboxForFile(runner: Runner = mcat, opts: Parameters<typeof startTestSandbox>[0] = {}): {
  /** the running sandbox (from the file's first test on) */
  readonly sb: Sandbox;
  run: (args: string[], o?: Parameters<Runner>[1]) => ReturnType<Runner>;
} {
  let running: Sandbox | undefined;
  beforeAll(async () => {
    running = await startTestSandbox(opts);
  });
  afterAll(async () => {
    await running?.close();
  });
  const sb = (): Sandbox => {
    if (!running) throw new Error('the sandbox of this file is not running (used outside its tests?)');
    return running;
  };
  return {
    get sb() {
      return sb();
    },
    run: (args, o = {}) => runner(args, { sandboxDir: sb().dataDir, ...o }),
  };
}

// The context of a run in this process (see CliContext in src/cli/run-context.ts): the one place the
// CLI's runs meet the process's streams, environment, signals and exit.
import type { CliContext } from '../cli/run-context';

/**
 * What a run may touch, from this process: its streams (each made by Node on first use only) and
 * their descriptors, a copy of its environment, its folder, its Ctrl-C and SIGTERM, and exiting at once.
 */
export function processContext(): CliContext {
  return {
    io: {
      get stdout() {
        return process.stdout;
      },
      get stderr() {
        return process.stderr;
      },
      get stdin() {
        return process.stdin;
      },
      fds: { stdout: 1, stderr: 2 },
    },
    env: { ...process.env },
    onInterrupt(fn) {
      process.on('SIGINT', fn);
      process.on('SIGTERM', fn);
      return () => {
        process.off('SIGINT', fn);
        process.off('SIGTERM', fn);
      };
    },
    exitNow: (code) => process.exit(code),
    // the launcher exits once the run has ended (boot.ts)
    endsWithRun: true,
  };
}

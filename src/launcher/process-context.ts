// The context of a run in this process (see CliContext in src/cli/run-context.ts): the one place the
// CLI's runs meet the process's streams, environment, signals and exit.
import type { CliContext } from '../cli/run-context';

/**
 * What stops a run as Ctrl-C does (work in flight finished or recorded, exit 130): Ctrl-C, a stop
 * (kill, systemd, docker stop) and the terminal closing (SIGHUP, which Node would otherwise let end
 * the process on the spot, a download's temporary file left behind).
 */
const INTERRUPTS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * What a run may touch, from this process: its streams (each made by Node on first use only) and
 * their descriptors, a copy of its environment, its folder, its Ctrl-C, SIGTERM and SIGHUP, and exiting at once.
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
      for (const signal of INTERRUPTS) process.on(signal, fn);
      return () => {
        for (const signal of INTERRUPTS) process.off(signal, fn);
      };
    },
    blocking(fn) {
      // with no listener left Node gives a signal back its default (the process ends, as killed by
      // it: a shell's 130 for Ctrl-C); the listeners are back once fn returns
      const held = INTERRUPTS.map((signal) => [signal, process.listeners(signal)] as const);
      for (const [signal] of held) process.removeAllListeners(signal);
      try {
        return fn();
      } finally {
        for (const [signal, fns] of held) for (const f of fns) process.on(signal, f);
      }
    },
    exitNow: (code) => process.exit(code),
    // the launcher exits once the run has ended (boot.ts)
    endsWithRun: true,
  };
}

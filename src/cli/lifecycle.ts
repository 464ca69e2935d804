// Process-wide resources of one mcat run (connection pools, an in-process sandbox),
// closed once when the command ends, and the Ctrl-C state.

type Cleanup = () => Promise<void> | void;
const cleanups: Cleanup[] = [];
let wasInterrupted = false;

export function onCleanup(fn: Cleanup): void {
  cleanups.push(fn);
}

const outputEnds: Cleanup[] = [];

/** Work that ends the output (a pager to close and wait for): before an error is printed, so it shows after. */
export function onOutputEnd(fn: Cleanup): void {
  outputEnds.push(fn);
}

export async function endOutput(): Promise<void> {
  while (outputEnds.length) {
    try {
      await outputEnds.pop()!();
    } catch {
      // the output is over either way
    }
  }
}

export async function runCleanups(): Promise<void> {
  await endOutput();
  while (cleanups.length) {
    const fn = cleanups.pop()!;
    try {
      await fn();
    } catch {
      // closing is best effort: the command's outcome is already decided
    }
  }
}

export function markInterrupted(): void {
  wasInterrupted = true;
}

export function interrupted(): boolean {
  return wasInterrupted;
}

/**
 * An AbortSignal that fires on the first SIGINT/SIGTERM; a second Ctrl-C exits at once with 130.
 * Commands that can finish in-flight work (bulk apply, downloads) use it.
 */
export function interruptSignal(): AbortSignal {
  const ac = new AbortController();
  let count = 0;
  let first = 0;
  const handler = () => {
    // conf's atomic writer (when-exit) re-raises every signal it sees, so one Ctrl-C arrives
    // twice within a few milliseconds: only a second press a moment later means "exit now"
    if (count > 0 && Date.now() - first < 250) return;
    count++;
    if (count === 1) first = Date.now();
    markInterrupted();
    if (count > 1) process.exit(130);
    ac.abort();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  onCleanup(() => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  });
  return ac.signal;
}

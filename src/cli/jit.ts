// How eagerly V8 optimises a bulk run's code. A run of a few thousand requests is over before
// optimising its hot functions pays for itself: on the bench's 1,000 replaces, V8 compiled ~80
// functions with TurboFan on its background threads, some big ones (the request core inlines the
// signing and undici's dispatch) for tens of ms each. A four times larger tier-up budget (the
// previous setting) compiled fewer, later: -19 % CPU at 1,000 edits. No TurboFan at all (the code
// runs in Ignition and Sparkplug, V8's baseline tier, which compiles in a fraction of the time)
// does better still: alternated runs against the sandbox at 20 ms, CPU medians, 294 -> 272 ms at
// 1,000 edits (-7.5 %) and 532 -> 478 ms at 2,000 (-10 %) against the larger budget; at 5,000,
// 1,053 ms against 1,078 with V8's default and 1,111 with the budget: the compiled code has time
// to pay there, so only a run known to be short turns the optimiser off.
//
// Such a run's young generation stays small (a few MB), and a scavenge of it shared among V8's
// helper threads costs more CPU in all than the main thread alone doing it: with TurboFan off,
// alternated runs (7 and 9) of 1,000 edits, 319 -> 312 and 338 -> 316 ms (the main thread's own
// time the same).

/** The most requests a run may make and still count as short. */
export const SHORT_RUN = 2000;

/** The flags of a short run, and those that put V8's defaults back. */
const SHORT_RUN_FLAGS = '--no-opt --no-parallel-scavenge';
const DEFAULT_FLAGS = '--opt --parallel-scavenge';
/** The V8 whose tiering was measured: Node 20's (Node 22 and later tier through Maglev too:
 *  they keep V8's own tiering). */
const MEASURED_V8 = /^11\.3\./;

/** The V8 flags for a run of `requests` requests, or undefined for V8's own tiering. */
export function tieringFlag(requests: number, v8Version: string = process.versions.v8): string | undefined {
  if (!MEASURED_V8.test(v8Version)) return undefined;
  return requests > 0 && requests <= SHORT_RUN ? SHORT_RUN_FLAGS : undefined;
}

/**
 * Tunes this process's optimising compiler for a run of `requests` requests (see above), until
 * the returned function puts V8's defaults back. Call it once every bundle the run needs is
 * loaded, and put the default back before the process ends: V8 refuses a code cache made under
 * other flags, so a bundle loaded (or a cache written, src/launcher/boot.ts) while the flag is
 * set would be compiled again on every run.
 */
export async function tuneForRun(requests: number): Promise<() => void> {
  const flag = tieringFlag(requests);
  if (!flag) return () => {};
  // node:v8 only for a run that sets a flag: every other command starts without it
  const v8 = await import('node:v8');
  v8.setFlagsFromString(flag);
  return () => v8.setFlagsFromString(DEFAULT_FLAGS);
}

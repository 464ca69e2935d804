// How eagerly V8 optimises a bulk run's code. A run of a few thousand requests is over before
// optimising its hot functions pays for itself: on the bench's 1,000 replaces, V8 compiled ~80
// functions with TurboFan on its background thread, some big ones (the request core inlines the
// signing and undici's dispatch) for tens of ms each, which added up to a sixth of the run's CPU.
// With four times V8's tier-up budget only the hottest are compiled, later: measured (alternated
// runs against the sandbox at 20 ms) -19 % CPU at 1,000 edits, -8 % at 2,000, but +7 % at 5,000,
// where the compiled code has time to pay. So only a run known to be short raises it.

/** The most requests a run may make and still count as short. */
export const SHORT_RUN = 2000;

/** V8's --interrupt-budget (bytecode executed between tier-up checks), and four times it. */
const V8_DEFAULT_BUDGET = 67584;
const SHORT_RUN_BUDGET = 4 * V8_DEFAULT_BUDGET;
/** The V8 whose default budget that is, and whose tiering was measured: Node 20's (Node 22 and
 *  later tier through Maglev too, and their default differs: they keep V8's own tiering). */
const MEASURED_V8 = /^11\.3\./;

/** The V8 flag for a run of `requests` requests, or undefined for V8's own tiering. */
export function tieringFlag(requests: number, v8Version: string = process.versions.v8): string | undefined {
  if (!MEASURED_V8.test(v8Version)) return undefined;
  return requests > 0 && requests <= SHORT_RUN ? `--interrupt-budget=${SHORT_RUN_BUDGET}` : undefined;
}

/**
 * Tunes this process's optimising compiler for a run of `requests` requests (see above), until
 * the returned function puts V8's default back. Call it once every bundle the run needs is
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
  return () => v8.setFlagsFromString(`--interrupt-budget=${V8_DEFAULT_BUDGET}`);
}

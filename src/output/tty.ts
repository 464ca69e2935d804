// Whether to colour, and how wide the terminal is: decided from explicit inputs only,
// never auto-detected behind the caller's back.

export interface ColorInputs {
  isTTY: boolean;
  env: NodeJS.ProcessEnv | Record<string, string | undefined>;
  /** false when --no-color was given */
  flag?: boolean;
}

/**
 * Explicit "off" wins (--no-color, then NO_COLOR); FORCE_COLOR forces colour on even without a
 * TTY or with TERM=dumb (FORCE_COLOR=0/false forces it off); otherwise colour follows the TTY.
 */
export function colorEnabled({ isTTY, env, flag }: ColorInputs): boolean {
  if (flag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    const f = force.trim().toLowerCase();
    if (f === '0' || f === 'false') return false;
    return true;
  }
  if (env.TERM === 'dumb') return false;
  return isTTY;
}

export const DEFAULT_WIDTH = 80;

/** COLUMNS when it is a positive whole number (never under 20), else undefined. */
export function columnsFromEnv(env: NodeJS.ProcessEnv | Record<string, string | undefined> | undefined): number | undefined {
  const v = env?.COLUMNS?.trim();
  const n = v !== undefined && /^\d{1,6}$/.test(v) ? Number(v) : 0;
  return n > 0 ? Math.max(20, n) : undefined;
}

/** The width tables fit: COLUMNS, else the terminal's, else 80 (never under 20). */
export function terminalWidth(stream: { columns?: number } | undefined, env: NodeJS.ProcessEnv | Record<string, string | undefined>): number {
  const fromEnv = columnsFromEnv(env);
  if (fromEnv !== undefined) return fromEnv;
  const cols = stream?.columns;
  if (typeof cols === 'number' && Number.isFinite(cols) && cols > 0) return Math.max(20, Math.floor(cols));
  return DEFAULT_WIDTH;
}

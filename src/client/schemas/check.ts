// What the checkers of response bodies share, compiled at run time (in-place.ts) or by the build
// (precompiled.ts): their verdict for a body that does not fit, and how a body that fits is
// returned. Loads nothing: a read whose checker the build made never loads zod.

/** What a check returns for a value that does not fit (or that it leaves to zod). */
export const NO: unique symbol = Symbol('no');

/** An object or array whose members are read and set by key. */
export type Box = { [key: string | number]: unknown };

/** A change to make once the whole body has passed: obj[key] = value. */
export type Fix = [obj: Box, key: string | number, value: unknown];

/** The value zod would output for `v`, or NO; changes inside `v` are recorded in `fixes`, not made. */
export type Check = (v: unknown, fixes: Fix[]) => unknown;

export const has = Object.prototype.hasOwnProperty;

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * `data` run through `check`: the output zod would give (the body itself, its changes made), or
 * undefined when zod must decide. Nothing is changed in the body until all of it has passed;
 * `changed` says whether anything was.
 */
export function runCheck(check: Check, data: unknown): { value: unknown; changed: boolean } | undefined {
  const fixes: Fix[] = [];
  const out = check(data, fixes);
  if (out === NO) return undefined;
  for (const [obj, key, value] of fixes) obj[key] = value;
  // (changed: the output is not what was parsed: a default filled in, a numeric string read as a number)
  return { value: out, changed: fixes.length > 0 || out !== data };
}

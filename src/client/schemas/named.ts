// A response schema by name: a body that fits is checked by the checker the build made for that
// name (precompiled.ts), without loading zod; zod (the schema itself, loaded then) checks any
// other, and says what does not fit. Without a precompiled checker (run from source) the schema
// is loaded while the request is out, and checked as every other schema is.
import type { ZodMiniType } from 'zod/mini';
import type { PRECOMPILE } from './precompile';
import { runCheck } from './check';
import { PRECOMPILED } from './precompiled';

export interface NamedSchema {
  readonly name: keyof typeof PRECOMPILE;
  /** the zod schema (loading zod and building it) */
  load(): Promise<ZodMiniType>;
}

export function namedSchema(name: NamedSchema['name'], load: () => Promise<ZodMiniType>): NamedSchema {
  return { name, load };
}

/** Whether the build made a checker for this schema. */
export function precompiled(s: NamedSchema): boolean {
  return Object.prototype.hasOwnProperty.call(PRECOMPILED, s.name);
}

/** `data` by the build's checker: zod's output (the body itself), or undefined when zod must decide. */
export function checkPrecompiled(s: NamedSchema, data: unknown): { value: unknown } | undefined {
  return runCheck(PRECOMPILED[s.name], data);
}

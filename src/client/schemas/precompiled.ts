// The checkers of the response schemas that the build makes from them (precompiledModule() in
// in-place.ts, over the schemas of precompile.ts): scripts/build.mjs puts that module in this
// one's place, so that dist/ checks a body that fits without loading zod. Run from source (tests),
// there are none, and each body is checked by a checker compiled from its schema at run time.
import type { Check } from './check';

export const PRECOMPILED: Readonly<Record<string, Check>> = {};

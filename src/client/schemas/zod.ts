// zod as the schemas use it: the functional zod/mini API (tree-shakable: a bundle keeps only the
// schema kinds and checks used, not the classic API's methods, every locale and the JSON-schema
// converters), configured once. The one module through which the client reaches zod, so the
// build can give zod a bundle of its own, loaded only by commands that validate a response.
import { config } from 'zod/mini';
// Just the English messages ("Invalid input: expected number, received string"), not the index
// of every locale; zod/mini loads none by itself and would only say "Invalid input".
import en from 'zod/v4/locales/en.js';

// A one-shot CLI validates a handful of bodies per run: compiling each schema to JS first costs
// more than it saves.
config({ jitless: true });
config(en());

// Only what the schemas use: as a bundle's entry, every name exported here is kept in it
// (`export *` would keep all of zod/mini, its locales included).
export {
  _default,
  array,
  boolean,
  custom,
  int,
  literal,
  looseObject,
  null,
  nullable,
  number,
  optional,
  pipe,
  record,
  refine,
  regex,
  strictObject,
  string,
  transform,
  union,
  unknown,
} from 'zod/mini';
export type { infer, output, ZodMiniType } from 'zod/mini';
export type { $ZodIssue } from 'zod/v4/core';

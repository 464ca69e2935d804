// Pieces shared by the resource schemas. Objects are loose: unknown fields pass through
// untouched; only what mcat relies on is checked, and the spec's variations are accepted.
import * as z from './zod';
import { servicePriceAlias } from './transforms';

/** Catalogue ids are integers; a numeric string (from an older XML form) is read as one. */
export const catalogueId = z.union([z.int(), z.pipe(z.string().check(z.regex(/^\d+$/)), z.transform(Number))]);

/** Playlist and group ids are strings; a number is read as its decimal string. */
export const stringId = z.union([z.string(), z.pipe(z.number(), z.transform(String))]);

/** Prices are strings in some listings and numbers in others (spec), null on some track entries. */
export const priceValue = z.union([z.string(), z.number(), z.null()]);

/** The spec's year: an integer in batch details, a string in artist release listings. */
export const year = z.union([z.number(), z.string()]);

export const int = z.int();

/** `z.preprocess` of the classic API (a transform piped into the schema); zod/mini has no helper for it. */
export function preprocess<T extends z.ZodMiniType>(fn: (v: unknown) => unknown, schema: T) {
  return z.pipe(z.transform<unknown, unknown>(fn), schema);
}

export const artist = z.looseObject({
  id: catalogueId,
  name: z.optional(z.string()),
  appearsAs: z.optional(z.string()),
  slug: z.optional(z.string()),
  image: z.optional(z.string()),
  isPlaceholderImage: z.optional(z.boolean()),
});

export const named = z.looseObject({ id: catalogueId, name: z.optional(z.string()) });

/** The real service calls servicePrice `sevendigitalPrice`: read it under the spec's name. */
export const price = preprocess(
  servicePriceAlias,
  z.looseObject({
    currencyCode: z.optional(z.string()),
    servicePrice: z.optional(priceValue),
    recommendedRetailPrice: z.optional(priceValue),
  }),
);

export const format = z.looseObject({ id: catalogueId, description: z.optional(z.string()) });

export const pkg = z.looseObject({
  id: catalogueId,
  description: z.optional(z.string()),
  price: z.optional(price),
  formats: z.optional(z.array(format)),
});

export const download = z.looseObject({
  releaseDate: z.optional(z.string()),
  previewDate: z.optional(z.string()),
  packages: z.optional(z.array(pkg)),
});

export const paging = {
  page: z.optional(int),
  pageSize: z.optional(int),
  totalItems: z.optional(int),
};

/** The catalogue and locker envelope: status "ok", version, schema. */
export const envelope = {
  status: z.optional(z.string()),
  version: z.optional(z.string()),
  schema: z.optional(z.string()),
};

// Pieces shared by the resource schemas. Objects are loose: unknown fields pass through
// untouched; only what mcat relies on is checked, and the spec's variations are accepted.
import { z } from 'zod';

// A one-shot CLI validates a handful of bodies per run: compiling each schema to JS first costs
// more than it saves.
z.config({ jitless: true });

/** Catalogue ids are integers; a numeric string (from an older XML form) is read as one. */
export const catalogueId = z.union([z.number().int(), z.string().regex(/^\d+$/).transform(Number)]);

/** Playlist and group ids are strings; a number is read as its decimal string. */
export const stringId = z.union([z.string(), z.number().transform(String)]);

/** Prices are strings in some listings and numbers in others (spec), null on some track entries. */
export const priceValue = z.union([z.string(), z.number(), z.null()]);

/** The spec's year: an integer in batch details, a string in artist release listings. */
export const year = z.union([z.number(), z.string()]);

export const int = z.number().int();

export const artist = z.looseObject({
  id: catalogueId,
  name: z.string().optional(),
  appearsAs: z.string().optional(),
  slug: z.string().optional(),
  image: z.string().optional(),
  isPlaceholderImage: z.boolean().optional(),
});

export const named = z.looseObject({ id: catalogueId, name: z.string().optional() });

/** The real service calls servicePrice `sevendigitalPrice`: read it under the spec's name. */
export const price = z.preprocess(
  (v) => {
    if (v && typeof v === 'object' && !Array.isArray(v) && 'sevendigitalPrice' in v) {
      const { sevendigitalPrice, ...rest } = v as Record<string, unknown>;
      return 'servicePrice' in rest ? rest : { ...rest, servicePrice: sevendigitalPrice };
    }
    return v;
  },
  z.looseObject({
    currencyCode: z.string().optional(),
    servicePrice: priceValue.optional(),
    recommendedRetailPrice: priceValue.optional(),
  }),
);

export const format = z.looseObject({ id: catalogueId, description: z.string().optional() });

export const pkg = z.looseObject({
  id: catalogueId,
  description: z.string().optional(),
  price: price.optional(),
  formats: z.array(format).optional(),
});

export const download = z.looseObject({
  releaseDate: z.string().optional(),
  previewDate: z.string().optional(),
  packages: z.array(pkg).optional(),
});

export const paging = {
  page: int.optional(),
  pageSize: int.optional(),
  totalItems: int.optional(),
};

/** The catalogue and locker envelope: status "ok", version, schema. */
export const envelope = {
  status: z.string().optional(),
  version: z.string().optional(),
  schema: z.string().optional(),
};

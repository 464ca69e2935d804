// The functions the schemas run on a body (their preprocess steps), in a module without zod: the
// checkers the build makes from the schemas (precompiled.ts) call these same functions.

/** A per-id failure of the batch call: the real service spells the id field `Itemid`. */
export function batchErrorAliases(v: unknown): unknown {
  if (v && typeof v === 'object' && !('itemId' in v)) {
    const o = v as Record<string, unknown>;
    const alias = o.Itemid ?? o.ItemId ?? o.itemid ?? o.id;
    if (alias !== undefined) return { ...o, itemId: alias };
  }
  return v;
}

/** The real service calls servicePrice `sevendigitalPrice`: read it under the spec's name. */
export function servicePriceAlias(v: unknown): unknown {
  if (v && typeof v === 'object' && !Array.isArray(v) && 'sevendigitalPrice' in v) {
    const { sevendigitalPrice, ...rest } = v as Record<string, unknown>;
    return 'servicePrice' in rest ? rest : { ...rest, servicePrice: sevendigitalPrice };
  }
  return v;
}

/**
 * A resource object sent without its envelope (the sandbox until 2026-11, some samples:
 * api-decisions.md, Resources) as `{ [key]: body }`, so that it is checked, and printed, as the
 * enveloped form is.
 */
export function enveloped(body: unknown, key: string): unknown {
  if (body && typeof body === 'object' && !(key in body) && 'id' in body) return { [key]: body };
  return body;
}

// NDJSON output: one JSON value per line (written through streams.ts, which escapes C1).
import { pickFields } from './fields';

export function ndjsonLine(item: unknown, fields?: readonly string[]): string {
  const v = fields && fields.length ? pickFields(item, fields) : item;
  return JSON.stringify(v ?? null) + '\n';
}

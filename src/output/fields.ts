// --fields: comma-separated dotted paths, and reading/picking values by them.
import { UsageError } from '../client/errors';

/* eslint-disable @typescript-eslint/no-explicit-any */

const SEGMENT = /^[^\s.,"'`]+$/;

export function parseFields(spec: string): string[] {
  const parts = spec.split(',').map((s) => s.trim());
  if (parts.every((p) => p === '')) throw new UsageError('--fields needs at least one field', 'e.g. --fields id,title,artist.name');
  const out: string[] = [];
  for (const p of parts) {
    if (p === '') throw new UsageError(`--fields has an empty entry: '${spec}'`, 'e.g. --fields id,title,artist.name');
    if (!p.split('.').every((seg) => SEGMENT.test(seg))) {
      throw new UsageError(`--fields: '${p}' is not a dotted path`, 'e.g. --fields id,title,artist.name');
    }
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

export function getPath(obj: any, path: string): any {
  let cur = obj;
  for (const k of path.split('.')) {
    if (cur === null || cur === undefined || typeof cur !== 'object') return undefined;
    cur = cur[k];
  }
  return cur;
}

/** A new object holding only the given paths (missing values as null), nested as in the source. */
export function pickFields(obj: any, paths: readonly string[]): Record<string, unknown> {
  const out: Record<string, any> = {};
  for (const path of paths) {
    const keys = path.split('.');
    let cur = out;
    let ok = true;
    for (const k of keys.slice(0, -1)) {
      if (cur[k] === undefined) cur[k] = {};
      else if (cur[k] === null || typeof cur[k] !== 'object' || Array.isArray(cur[k])) {
        ok = false; // an earlier, shorter path already took this key whole
        break;
      }
      cur = cur[k];
    }
    const last = keys[keys.length - 1];
    if (ok && !(last in cur)) {
      const v = getPath(obj, path);
      cur[last] = v === undefined ? null : v;
    }
  }
  return out;
}

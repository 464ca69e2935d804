// --fields: comma-separated paths into each listed item, reading values by them and picking
// them into new objects. A path is dotted keys, where a key may be followed by `[]` (every
// element of an array) or `[n]` (one element; negative from the end): `artist.name`,
// `tracks[].trackId`, `releases[0].title`. A view may also name its table's computed columns
// (a title shown with its version): those names read the computed value.
import { InputError } from '../client/errors';
import type { Column, View } from './types';

type Step = { key: string } | { index: number } | { each: true };

const KEY = /^[^\s.,"'`[\]]+$/;
const SELECTOR = /\[(-?\d+)?\]/g;
const EXAMPLE = 'e.g. --fields id,title,artist.name,tracks[].trackId';

/** The steps of one path, or undefined when it is not a path. */
export function parsePath(path: string): Step[] | undefined {
  if (path === '') return undefined;
  const steps: Step[] = [];
  for (const part of path.split('.')) {
    const open = part.indexOf('[');
    const key = open < 0 ? part : part.slice(0, open);
    const rest = open < 0 ? '' : part.slice(open);
    if (!KEY.test(key)) return undefined;
    steps.push({ key });
    if (rest === '') continue;
    SELECTOR.lastIndex = 0;
    let at = 0;
    for (const m of rest.matchAll(SELECTOR)) {
      if (m.index !== at) return undefined;
      at += m[0].length;
      steps.push(m[1] === undefined ? { each: true } : { index: Number(m[1]) });
    }
    if (at !== rest.length) return undefined;
  }
  return steps;
}

export function parseFields(spec: string): string[] {
  const parts = spec.split(',').map((s) => s.trim());
  if (parts.every((p) => p === '')) throw new InputError('--fields needs at least one field', EXAMPLE);
  const out: string[] = [];
  for (const p of parts) {
    if (p === '') throw new InputError(`--fields has an empty entry: '${spec}'`, EXAMPLE);
    if (!parsePath(p)) throw new InputError(`--fields: '${p}' is not a field path`, EXAMPLE);
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

const compiled = new Map<string, Step[]>();

function stepsOf(path: string): Step[] {
  let s = compiled.get(path);
  if (!s) {
    // a name that is not a path (it cannot be in the data) reads nothing
    s = parsePath(path) ?? [{ key: '\0' }];
    compiled.set(path, s);
  }
  return s;
}

function own(v: unknown, key: string): unknown {
  return v !== null && typeof v === 'object' && Object.prototype.hasOwnProperty.call(v, key) ? (v as Record<string, unknown>)[key] : undefined;
}

function at(v: unknown, index: number): unknown {
  if (!Array.isArray(v)) return undefined;
  return v[index < 0 ? v.length + index : index];
}

/** Values at steps[i..] of v, appended to out; true when the path exists (an empty array counts). */
function collect(v: unknown, steps: Step[], i: number, out: unknown[]): boolean {
  for (; i < steps.length; i++) {
    const s = steps[i];
    if ('each' in s) {
      if (!Array.isArray(v)) return false;
      if (v.length === 0) return true;
      let found = false;
      for (const e of v) if (collect(e, steps, i + 1, out)) found = true;
      return found;
    }
    v = 'key' in s ? own(v, s.key) : at(v, s.index);
    if (v === undefined) return false;
  }
  out.push(v);
  return true;
}

/**
 * The value at a path: a single value, or with `[]` the list of every value found (nested lists
 * flattened); undefined when the path is not in obj.
 */
export function getPath(obj: unknown, path: string): unknown {
  const steps = stepsOf(path);
  if (!steps.some((s) => 'each' in s)) {
    let cur = obj;
    for (const s of steps) {
      cur = 'key' in s ? own(cur, s.key) : at(cur, (s as { index: number }).index);
      if (cur === undefined) return undefined;
    }
    return cur;
  }
  const out: unknown[] = [];
  return collect(obj, steps, 0, out) ? out : undefined;
}

// ---- picking: the paths of an item, in a new object nested as in the source ----

interface Node {
  leaf?: boolean;
  keys?: Map<string, Node>;
  each?: Node;
  index?: Map<number, Node>;
}

function addPath(root: Node, steps: Step[]): void {
  let n = root;
  for (const s of steps) {
    if (n.leaf) return; // a shorter path already takes this whole value
    let next: Node | undefined;
    if ('key' in s) {
      n.keys ??= new Map();
      next = n.keys.get(s.key);
      if (!next) n.keys.set(s.key, (next = {}));
    } else if ('each' in s) {
      next = n.each ??= {};
    } else {
      n.index ??= new Map();
      next = n.index.get(s.index);
      if (!next) n.index.set(s.index, (next = {}));
    }
    n = next;
  }
  n.leaf = true;
  delete n.keys;
  delete n.each;
  delete n.index;
}

/** Two nodes as one: what either picks (a leaf takes the whole value). */
function mergeNodes(a: Node | undefined, b: Node | undefined): Node | undefined {
  if (!a || !b) return a ?? b;
  if (a.leaf || b.leaf) return { leaf: true };
  const out: Node = {};
  if (a.keys || b.keys) {
    out.keys = new Map(a.keys);
    for (const [k, child] of b.keys ?? []) out.keys.set(k, mergeNodes(out.keys.get(k), child)!);
  }
  const each = mergeNodes(a.each, b.each);
  if (each) out.each = each;
  if (a.index || b.index) {
    out.index = new Map(a.index);
    for (const [i, child] of b.index ?? []) out.index.set(i, mergeNodes(out.index.get(i), child)!);
  }
  return out;
}

function project(v: unknown, n: Node): unknown {
  if (n.leaf) return v === undefined ? null : v;
  if (n.each || n.index) {
    if (!Array.isArray(v)) return null;
    // each element once, in the array's order, with what `[]` and its own `[n]` (or `[-n]`) pick of it
    const byPosition = new Map<number, Node>();
    for (const [i, child] of n.index ?? []) {
      const j = i < 0 ? v.length + i : i;
      if (j >= 0 && j < v.length) byPosition.set(j, mergeNodes(byPosition.get(j), child)!);
    }
    if (n.each) return v.map((e, j) => project(e, mergeNodes(n.each, byPosition.get(j))!));
    return [...byPosition.keys()].sort((x, y) => x - y).map((j) => project(v[j], byPosition.get(j)!));
  }
  const out: Record<string, unknown> = {};
  for (const [k, child] of n.keys ?? []) define(out, k, project(own(v, k), child));
  return out;
}

function define(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/** A new object holding only the given paths (missing values as null), nested as in the source. */
export function pickFields(obj: unknown, paths: readonly string[]): Record<string, unknown> {
  const root: Node = {};
  for (const p of paths) addPath(root, stepsOf(p));
  return project(obj ?? {}, root) as Record<string, unknown>;
}

// ---- the fields of a view: paths into the data, and the names of its computed columns ----

export interface FieldReader {
  name: string;
  /** the value as data (csv, tsv, json, ndjson) */
  value(item: unknown): unknown;
  /** what a table shows */
  text(item: unknown): unknown;
  /** a name the view defines (always there), not a path into the data */
  computed: boolean;
}

/** The names a view gives its computed values, with what each reads. */
export function computedNames(view: View | undefined): Map<string, (item: unknown) => unknown> {
  const names = new Map<string, (item: unknown) => unknown>();
  for (const c of view?.columns ?? []) {
    if (c.shown && c.get) names.set(c.shown, c.get);
    if (c.value) names.set(c.key, c.value);
  }
  return names;
}

/** How a column reads its data value: computed, or the value at its key as received. */
export function columnValue(c: Column, item: unknown): unknown {
  return c.value ? c.value(item) : getPath(item, c.key);
}

/** What a table shows of a column. */
export function columnText(c: Column, item: unknown): unknown {
  return c.get ? c.get(item) : columnValue(c, item);
}

export function fieldReaders(view: View | undefined, fields: readonly string[]): FieldReader[] {
  const names = computedNames(view);
  return fields.map((name) => {
    const fn = names.get(name);
    if (fn) {
      const col = view!.columns.find((c) => c.key === name && c.value);
      return { name, value: fn, text: col ? (item: unknown) => columnText(col, item) : fn, computed: true };
    }
    const read = (item: unknown) => getPath(item, name);
    return { name, value: read, text: read, computed: false };
  });
}

/** Picks fields of an item: paths nested as in the source, computed names as top-level keys. */
export function pickReaders(item: unknown, readers: readonly FieldReader[]): Record<string, unknown> {
  const paths = readers.filter((r) => !r.computed).map((r) => r.name);
  const picked = paths.length ? pickFields(item, paths) : {};
  const out: Record<string, unknown> = {};
  for (const r of readers) {
    if (r.computed) define(out, r.name, r.value(item) ?? null);
    else {
      const top = stepsOf(r.name)[0] as { key: string };
      if (!Object.prototype.hasOwnProperty.call(out, top.key)) define(out, top.key, picked[top.key]);
    }
  }
  return out;
}

// ---- a path that matches nothing in any row is an error ----

/** Paths of the scalar values in some items (arrays as `[]`), for telling what fields there are. */
export function pathsIn(items: readonly unknown[], max = 60): string[] {
  const seen = new Set<string>();
  const walk = (v: unknown, path: string, depth: number) => {
    if (seen.size > max) return;
    if (Array.isArray(v)) {
      for (const e of v.slice(0, 5)) walk(e, `${path}[]`, depth);
      if (v.length === 0) seen.add(`${path}[]`);
      return;
    }
    if (v !== null && typeof v === 'object' && depth < 4) {
      const keys = Object.keys(v);
      if (keys.length === 0 && path) seen.add(path);
      // names from the data reach the terminal in a hint: plain ones only
      for (const k of keys) if (/^[\w$@-]+$/.test(k)) walk((v as Record<string, unknown>)[k], path ? `${path}.${k}` : k, depth + 1);
      return;
    }
    if (path) seen.add(path);
  };
  for (const item of items.slice(0, 20)) walk(item, '', 0);
  return [...seen];
}

/**
 * Watches the rows of a listing for --fields paths that match nothing. `settled` once every
 * path has matched some row; `check()` at the end throws for those that never did.
 */
export class FieldCheck {
  private readonly pending: Set<string>;
  private readonly sample: unknown[] = [];

  constructor(
    private readonly readers: readonly FieldReader[],
    private readonly view?: View,
    /** the flag that gave the fields, for messages */
    private readonly flag = '--fields',
  ) {
    this.pending = new Set(readers.filter((r) => !r.computed).map((r) => r.name));
  }

  get settled(): boolean {
    return this.pending.size === 0;
  }

  see(item: unknown): void {
    if (this.pending.size === 0) return;
    if (this.sample.length < 20) this.sample.push(item);
    for (const p of this.pending) if (getPath(item, p) !== undefined) this.pending.delete(p);
  }

  /** Throws a usage error naming the paths no row had, and the fields there are. */
  check(): void {
    if (this.pending.size === 0 || this.sample.length === 0) return;
    const missing = [...this.pending];
    // a computed column may bear the name of a path in the rows too (playlist list: trackCount)
    const there = [...new Set([...computedNames(this.view).keys(), ...pathsIn(this.sample)])];
    const shown = there.length > 40 ? [...there.slice(0, 40), '…'] : there;
    throw new InputError(
      `${this.flag}: ${missing.map((m) => `'${m}'`).join(', ')} ${missing.length === 1 ? 'matches' : 'match'} nothing in any row`,
      `fields there are: ${shown.join(', ')}`,
    );
  }
}

// Validation of big bodies without copying them. zod's parse builds a new object for every object
// of a body (a 50-release locker page is ~20,000 of them: ~3 ms a page, and most of a locker
// walk's garbage). A checker compiled once from a zod schema reads the body as JSON.parse made it,
// and returns that same body, the schema's defaults and transforms applied, when it fits the schema.
//
// The zod schema stays the one definition: the checker accepts only what zod accepts, and whatever
// it cannot decide goes to zod, which then gives the error message or the output: a body that does
// not fit (even one that needs no more than a default filled in further down), a schema kind or
// check it does not know (the whole schema is then left to zod). Nothing is changed in the body
// until all of it has passed, so zod always sees the body as received.
//
// One difference from zod's output, on purpose: an object keeps the server's key order (zod puts
// the schema's keys first). Test: test/unit/client/in-place.test.ts compares the two.

/** zod's definition of a schema, as far as this module reads it (zod's internals, read loosely). */
interface Def {
  type?: string;
  checks?: readonly { _zod?: { def?: Def } }[];
  coerce?: boolean;
  format?: string;
  check?: string;
  pattern?: unknown;
  innerType?: Schema;
  defaultValue?: unknown;
  element?: Schema;
  catchall?: Schema;
  shape?: Record<string, Schema>;
  keyType?: Schema;
  valueType?: Schema;
  inclusive?: boolean;
  discriminator?: unknown;
  options?: readonly Schema[];
  in?: Schema;
  out?: Schema;
  transform?: unknown;
}
type Schema = { _zod?: { def?: Def } } | undefined;
/** An object or array whose members are read and set by key. */
type Box = { [key: string | number]: unknown };

/** What a check returns for a value that does not fit (or that it leaves to zod). */
const NO: unique symbol = Symbol('no');

/** A change to make once the whole body has passed: obj[key] = value. */
type Fix = [obj: Box, key: string | number, value: unknown];

/** The value zod would output for `v`, or NO; changes inside `v` are recorded in `fixes`, not made. */
type Check = (v: unknown, fixes: Fix[]) => unknown;

const has = Object.prototype.hasOwnProperty;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** An element of an array or a record: false when it does not fit; a changed output is recorded. */
function member(container: Box, key: string | number, check: Check, fixes: Fix[]): boolean {
  const cur = container[key];
  const out = check(cur, fixes);
  if (out === NO) return false;
  if (out !== cur) fixes.push([container, key, out]);
  return true;
}

/** Thrown while compiling: the schema uses something this module does not decide. */
class Unsupported extends Error {}

function unsupported(what: string): never {
  throw new Unsupported(what);
}

/** The checks of a string schema this module knows: regex formats. */
function stringCheck(def: Def): (s: string) => boolean {
  if (def.coerce) unsupported('coerced string');
  const patterns: RegExp[] = [];
  for (const c of def.checks ?? []) {
    const cd = c?._zod?.def;
    if (cd?.check === 'string_format' && cd.format === 'regex' && cd.pattern instanceof RegExp) patterns.push(cd.pattern);
    else unsupported(`string check ${cd?.check}/${cd?.format}`);
  }
  if (patterns.length === 0) return () => true;
  return (s) => {
    for (const p of patterns) {
      p.lastIndex = 0; // as zod does: a /g pattern keeps state between tests
      if (!p.test(s)) return false;
    }
    return true;
  };
}

function compileDef(schema: Schema, memo: Map<unknown, Check>): Check {
  const known = memo.get(schema);
  if (known) return known;
  const def = schema?._zod?.def;
  if (!def) unsupported('not a zod schema');
  // a check added with .check() (refinements, lengths) on any kind but the string formats above
  if (def.type !== 'string' && def.checks?.length) unsupported(`checks on ${def.type}`);
  let check: Check;
  switch (def.type) {
    case 'string': {
      const ok = stringCheck(def);
      check = (v) => (typeof v === 'string' && ok(v) ? v : NO);
      break;
    }
    case 'number': {
      if (def.coerce) unsupported('coerced number');
      if (def.format === 'safeint') check = (v) => (Number.isSafeInteger(v) ? v : NO);
      else if (def.format === undefined) check = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : NO);
      else unsupported(`number format ${def.format}`);
      break;
    }
    case 'boolean':
      if (def.coerce) unsupported('coerced boolean');
      check = (v) => (typeof v === 'boolean' ? v : NO);
      break;
    case 'null':
      check = (v) => (v === null ? v : NO);
      break;
    case 'unknown':
    case 'any':
      check = (v) => v;
      break;
    case 'optional': {
      const inner = compileDef(def.innerType, memo);
      check = (v, fixes) => (v === undefined ? v : inner(v, fixes));
      break;
    }
    case 'nullable': {
      const inner = compileDef(def.innerType, memo);
      check = (v, fixes) => (v === null ? v : inner(v, fixes));
      break;
    }
    case 'default': {
      const inner = compileDef(def.innerType, memo);
      // zod's getter: a fresh copy of the default each time
      check = (v, fixes) => (v === undefined ? def.defaultValue : inner(v, fixes));
      break;
    }
    case 'array': {
      const element = compileDef(def.element, memo);
      check = (v, fixes) => {
        if (!Array.isArray(v)) return NO;
        for (let i = 0; i < v.length; i++) if (!member(v as unknown as Box, i, element, fixes)) return NO;
        return v;
      };
      break;
    }
    case 'object': {
      // a loose object passes unknown keys through; a plain or strict one drops or refuses them
      if (def.catchall?._zod?.def?.type !== 'unknown') unsupported('object that is not loose');
      const shape: Record<string, Schema> = def.shape ?? {};
      const keys = Object.keys(shape);
      if (keys.includes('__proto__')) unsupported('a key named __proto__');
      // assigned after: a schema that contains itself (z.lazy is not supported, but a memo hit is)
      memo.set(schema, (v, fixes) => check(v, fixes));
      check = objectCheck(keys.map((k) => [k, fieldPlan(shape[k], memo)]));
      break;
    }
    case 'record': {
      const kd = def.keyType?._zod?.def;
      // every key is a string: whatever the record's mode, each passes with its value
      if (kd?.type !== 'string' || kd.checks?.length || kd.coerce) unsupported('record key');
      const value = compileDef(def.valueType, memo);
      check = (v, fixes) => {
        if (!isPlainObject(v) || has.call(v, '__proto__')) return NO;
        for (const k of Object.keys(v)) if (!member(v, k, value, fixes)) return NO;
        return v;
      };
      break;
    }
    case 'union': {
      if (def.inclusive === false || def.discriminator !== undefined) unsupported('exclusive or discriminated union');
      const options = (def.options ?? []).map((o) => compileDef(o, memo));
      // the first option that fits wins, as in zod
      check = (v, fixes) => {
        const mark = fixes.length;
        for (const option of options) {
          const out = option(v, fixes);
          if (out !== NO) return out;
          fixes.length = mark;
        }
        return NO;
      };
      break;
    }
    case 'pipe': {
      const a = compileDef(def.in, memo);
      const b = compileDef(def.out, memo);
      const thenTransform = def.out?._zod?.def?.type === 'transform';
      check = (v, fixes) => {
        const mark = fixes.length;
        const mid = a(v, fixes);
        if (mid === NO) return NO;
        // a transform would see the value before the changes recorded inside it: zod's business
        if (thenTransform && fixes.length !== mark) return NO;
        return b(mid, fixes);
      };
      break;
    }
    case 'transform': {
      const fn = def.transform as (v: unknown, payload: { value: unknown; issues: unknown[] }) => unknown;
      check = (v) => {
        const payload = { value: v, issues: [] as unknown[] };
        const out = fn(v, payload);
        return payload.issues.length || out instanceof Promise ? NO : out;
      };
      break;
    }
    default:
      unsupported(`schema kind ${def.type}`);
  }
  memo.set(schema, check);
  return check;
}

/**
 * A JavaScript test of `cur` for the schemas whose output is always their input (a string with
 * no checks, a number, a boolean, null, unknown, and those optional or nullable), or undefined.
 */
function inlineTest(schema: Schema): string | undefined {
  const def = schema?._zod?.def;
  if (!def || (def.type !== 'string' && def.checks?.length) || def.coerce) return undefined;
  switch (def.type) {
    case 'string':
      return def.checks?.length ? undefined : `typeof cur === 'string'`;
    case 'number':
      return def.format === 'safeint' ? 'Number.isSafeInteger(cur)' : def.format === undefined ? `(typeof cur === 'number' && Number.isFinite(cur))` : undefined;
    case 'boolean':
      return `typeof cur === 'boolean'`;
    case 'null':
      return 'cur === null';
    case 'unknown':
    case 'any':
      return 'true';
    case 'optional':
    case 'nullable': {
      const inner = inlineTest(def.innerType);
      return inner && `(cur === ${def.type === 'optional' ? 'undefined' : 'null'} || ${inner})`;
    }
    default:
      return undefined;
  }
}

/**
 * How an object's field is checked in its code: a test in line (`test`), a call of its check,
 * and the short ways around the call for the common case (each a check of its own otherwise: a
 * call per field and per member, through closures shared by every schema of their kind, was most
 * of a release's check). `skipIf` (an optional field) leaves out an undefined value; `unless` (a
 * union whose first option is tested in line) calls the union's check only when that test fails,
 * the first option that fits winning as in zod; `each` (an array, or an optional one) calls the
 * members' check in a loop of the object's code.
 */
type FieldPlan =
  | { test: string }
  | { check: Check; skipIf?: boolean; unless?: string }
  | { each: Check; skipIf: boolean };

function fieldPlan(schema: Schema, memo: Map<unknown, Check>): FieldPlan {
  const test = inlineTest(schema);
  if (test) return { test };
  // compiled whole first: a schema this module leaves to zod still throws Unsupported here
  const check = compileDef(schema, memo);
  let def = schema?._zod?.def;
  let skipIf = false;
  if (def?.type === 'optional') {
    skipIf = true;
    def = def.innerType?._zod?.def;
  }
  if (def?.type === 'array') return { each: compileDef(def.element, memo), skipIf };
  const inner = skipIf ? compileDef(schema?._zod?.def?.innerType, memo) : check;
  if (def?.type === 'union') {
    const first = inlineTest(def.options?.[0]);
    if (first) return { check: inner, skipIf, unless: first };
  }
  return { check: inner, skipIf };
}

/**
 * The check of a loose object, as code made for its keys: each key read by name and each simple
 * field tested in line. A loop over the keys (a keyed load for each, a call for each) cost about
 * as much as JSON.parse of the body; this costs a fraction. The keys are embedded as JSON
 * strings and the checks passed in, so no text from a body ever becomes code.
 */
function objectCheck(fields: [key: string, plan: FieldPlan][]): Check {
  const checks: Check[] = [];
  const call = (c: Check, k: string) => {
    checks.push(c);
    return `out = c${checks.length - 1}(cur, fixes); if (out === NO) return NO; if (out !== cur) fixes.push([v, ${k}, out]);`;
  };
  let body = `if (typeof v !== 'object' || v === null || Array.isArray(v) || has.call(v, '__proto__')) return NO;\nlet cur, out, el;\n`;
  for (const [key, plan] of fields) {
    const k = JSON.stringify(key);
    let code: string;
    if ('test' in plan) code = `if (!(${plan.test})) return NO;`;
    else if ('each' in plan) {
      checks.push(plan.each);
      const c = `c${checks.length - 1}`;
      code = `if (!Array.isArray(cur)) return NO; for (let i = 0; i < cur.length; i++) { el = cur[i]; out = ${c}(el, fixes); if (out === NO) return NO; if (out !== el) fixes.push([cur, i, out]); }`;
      if (plan.skipIf) code = `if (cur !== undefined) { ${code} }`;
    } else {
      code = call(plan.check, k);
      if (plan.unless) code = `if (!(${plan.unless})) { ${code} }`;
      if (plan.skipIf) code = `if (cur !== undefined) { ${code} }`;
    }
    body += `cur = v[${k}]; ${code}\n`;
  }
  body += 'return v;';
  const names = checks.map((_, i) => `c${i}`);
  // zod drops an own __proto__ key: such an object is left to it
  return new Function('NO', 'has', ...names, `return function check(v, fixes) {\n${body}\n};`)(NO, has, ...checks) as Check;
}

const compiled = new WeakMap<object, Check | null>();

/** The checker of a schema, or null when this module leaves the schema to zod. */
export function checkerOf(schema: object): Check | null {
  let c = compiled.get(schema);
  if (c === undefined) {
    try {
      c = compileDef(schema, new Map());
    } catch (e) {
      if (!(e instanceof Unsupported)) throw e;
      c = null;
    }
    compiled.set(schema, c);
  }
  return c;
}

/** Whether `schema` is checked in place (tests: the schemas of big listings must be). */
export function checkedInPlace(schema: object): boolean {
  return checkerOf(schema) !== null;
}

/**
 * `data` validated by `schema` in place: the output zod would give (the same values; an object's
 * keys in the order received), or undefined when zod must decide (the data does not fit, or the
 * schema is not one this module checks).
 */
export function parseInPlace(schema: object, data: unknown): { value: unknown } | undefined {
  const check = checkerOf(schema);
  if (!check) return undefined;
  const fixes: Fix[] = [];
  const out = check(data, fixes);
  if (out === NO) return undefined;
  for (const [obj, key, value] of fixes) obj[key] = value;
  return { value: out };
}

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
// A checker is JavaScript made from the schema: compiled here at run time (checkerOf), or by the
// build from the same schemas into dist (precompiledModule, see precompiled.ts), so that a read
// whose body fits never loads zod at all. Both are the same code from the same compiler.
//
// One difference from zod's output, on purpose: an object keeps the server's key order (zod puts
// the schema's keys first). Test: test/unit/client/in-place.test.ts compares the two.
import { has, isPlainObject, NO, runCheck, type Check } from './check';

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

/** Thrown while compiling: the schema uses something this module does not decide. */
class Unsupported extends Error {}

function unsupported(what: string): never {
  throw new Unsupported(what);
}

/**
 * A value the code refers to by a name the caller gives it: a transform's function, a string
 * pattern, a default (`def`: its `defaultValue` is a fresh value at each read). undefined: the
 * caller cannot name it, and the schema is left to zod.
 */
type Refer = (kind: 'transform' | 'pattern' | 'default', value: unknown) => string | undefined;

/**
 * Checkers as JavaScript: one function declaration per schema (`function c3(v, fixes)`) over the
 * names NO, has, isPlainObject and those `refer` gave. The keys of objects are embedded as JSON
 * strings and everything else is named, so no text from a body, nor any text of a schema but its
 * keys, becomes code.
 */
class Program {
  readonly fns: string[] = [];
  private readonly memo = new Map<Schema, string>();
  private readonly added: Schema[] = [];
  private n = 0;

  constructor(private readonly refer: Refer) {}

  /** The name of the checker of `schema`, or undefined (nothing of it kept) when it is zod's to decide. */
  root(schema: object): string | undefined {
    const fns = this.fns.length;
    const added = this.added.length;
    try {
      return this.compile(schema);
    } catch (e) {
      if (!(e instanceof Unsupported)) throw e;
      this.fns.length = fns;
      for (const s of this.added.splice(added)) this.memo.delete(s);
      return undefined;
    }
  }

  private ref(kind: Parameters<Refer>[0], value: unknown): string {
    return this.refer(kind, value) ?? unsupported(`a ${kind} without a name`);
  }

  private compile(schema: Schema): string {
    const known = this.memo.get(schema);
    if (known) return known;
    const def = schema?._zod?.def;
    if (!def) unsupported('not a zod schema');
    // a check added with .check() (refinements, lengths) on any kind but the string formats below
    if (def.type !== 'string' && def.checks?.length) unsupported(`checks on ${def.type}`);
    const name = `c${this.n++}`;
    // named before its parts: a schema that contains itself (z.lazy is not supported, but a memo hit is)
    this.memo.set(schema, name);
    this.added.push(schema);
    this.fns.push(`function ${name}(v, fixes) {\n${this.body(def)}\n}`);
    return name;
  }

  private body(def: Def): string {
    switch (def.type) {
      case 'string':
        return `return typeof v === 'string'${this.patterns(def)} ? v : NO;`;
      case 'number':
        if (def.coerce) unsupported('coerced number');
        if (def.format === 'safeint') return 'return Number.isSafeInteger(v) ? v : NO;';
        if (def.format === undefined) return `return typeof v === 'number' && Number.isFinite(v) ? v : NO;`;
        return unsupported(`number format ${def.format}`);
      case 'boolean':
        if (def.coerce) unsupported('coerced boolean');
        return `return typeof v === 'boolean' ? v : NO;`;
      case 'null':
        return 'return v === null ? v : NO;';
      case 'unknown':
      case 'any':
        return 'return v;';
      case 'optional':
        return `return v === undefined ? v : ${this.compile(def.innerType)}(v, fixes);`;
      case 'nullable':
        return `return v === null ? v : ${this.compile(def.innerType)}(v, fixes);`;
      case 'default': {
        const inner = this.compile(def.innerType);
        // zod's getter: a fresh copy of the default each time
        return `return v === undefined ? ${this.ref('default', def)}() : ${inner}(v, fixes);`;
      }
      case 'array':
        return `if (!Array.isArray(v)) return NO;\nfor (let i = 0; i < v.length; i++) {\n${member(this.compile(def.element), 'v[i]', 'i')}\n}\nreturn v;`;
      case 'object':
        return this.object(def);
      case 'record': {
        const kd = def.keyType?._zod?.def;
        // every key is a string: whatever the record's mode, each passes with its value
        if (kd?.type !== 'string' || kd.checks?.length || kd.coerce) unsupported('record key');
        const value = this.compile(def.valueType);
        return `if (!isPlainObject(v) || has.call(v, '__proto__')) return NO;\nfor (const k of Object.keys(v)) {\n${member(value, 'v[k]', 'k')}\n}\nreturn v;`;
      }
      case 'union': {
        if (def.inclusive === false || def.discriminator !== undefined) unsupported('exclusive or discriminated union');
        const options = (def.options ?? []).map((o) => this.compile(o));
        // the first option that fits wins, as in zod
        return `const mark = fixes.length;\nlet out;\n${options.map((o) => `out = ${o}(v, fixes); if (out !== NO) return out; fixes.length = mark;`).join('\n')}\nreturn NO;`;
      }
      case 'pipe': {
        const a = this.compile(def.in);
        const b = this.compile(def.out);
        // a transform would see the value before the changes recorded inside it: zod's business
        const thenTransform = def.out?._zod?.def?.type === 'transform' ? 'if (fixes.length !== mark) return NO;\n' : '';
        return `const mark = fixes.length;\nconst mid = ${a}(v, fixes);\nif (mid === NO) return NO;\n${thenTransform}return ${b}(mid, fixes);`;
      }
      case 'transform': {
        const fn = this.ref('transform', def.transform);
        return `const payload = { value: v, issues: [] };\nconst out = ${fn}(v, payload);\nreturn payload.issues.length || out instanceof Promise ? NO : out;`;
      }
      default:
        return unsupported(`schema kind ${def.type}`);
    }
  }

  /** The checks of a string schema this module knows (regex formats), as `&& …` tests of v. */
  private patterns(def: Def): string {
    if (def.coerce) unsupported('coerced string');
    let tests = '';
    for (const c of def.checks ?? []) {
      const cd = c?._zod?.def;
      if (!(cd?.check === 'string_format' && cd.format === 'regex' && cd.pattern instanceof RegExp)) unsupported(`string check ${cd?.check}/${cd?.format}`);
      const p = this.ref('pattern', cd.pattern);
      // lastIndex reset as zod does: a /g pattern keeps state between tests
      tests += ` && (${p}.lastIndex = 0, ${p}.test(v))`;
    }
    return tests;
  }

  /**
   * A loose object: each key read by name and each simple field tested in line. A loop over the
   * keys (a keyed load for each, a call for each) cost about as much as JSON.parse of the body.
   */
  private object(def: Def): string {
    // a loose object passes unknown keys through; a plain or strict one drops or refuses them
    if (def.catchall?._zod?.def?.type !== 'unknown') unsupported('object that is not loose');
    const shape: Record<string, Schema> = def.shape ?? {};
    // zod drops an own __proto__ key: such an object is left to it
    if (Object.keys(shape).includes('__proto__')) unsupported('a key named __proto__');
    let body = `if (typeof v !== 'object' || v === null || Array.isArray(v) || has.call(v, '__proto__')) return NO;\nlet cur, out, el;\n`;
    for (const [key, field] of Object.entries(shape)) body += `cur = v[${JSON.stringify(key)}]; ${this.field(key, field)}\n`;
    return body + 'return v;';
  }

  /**
   * The check of an object's field (its value in `cur`): a test in line, a call of its check, and
   * the short ways around the call for the common case (each a call of its own otherwise: a call
   * per field and per member was most of a release's check): an optional field left out when
   * undefined; a union whose first option is tested in line calls its check only when that test
   * fails (the first option that fits wins, as in zod); an array, optional or not, checks its
   * members in a loop of the object's code.
   */
  private field(key: string, schema: Schema): string {
    const test = inlineTest(schema);
    if (test) return `if (!(${test})) return NO;`;
    // compiled whole first: a schema this module leaves to zod still throws Unsupported here
    const whole = this.compile(schema);
    let def = schema?._zod?.def;
    const optional = def?.type === 'optional';
    if (optional) def = def?.innerType?._zod?.def;
    let code: string;
    if (def?.type === 'array') {
      const each = this.compile(def.element);
      code = `if (!Array.isArray(cur)) return NO; for (let i = 0; i < cur.length; i++) { el = cur[i]; out = ${each}(el, fixes); if (out === NO) return NO; if (out !== el) fixes.push([cur, i, out]); }`;
    } else {
      const inner = optional ? this.compile(schema?._zod?.def?.innerType) : whole;
      code = `out = ${inner}(cur, fixes); if (out === NO) return NO; if (out !== cur) fixes.push([v, ${JSON.stringify(key)}, out]);`;
      const first = def?.type === 'union' ? inlineTest(def.options?.[0]) : undefined;
      if (first) code = `if (!(${first})) { ${code} }`;
    }
    return optional ? `if (cur !== undefined) { ${code} }` : code;
  }
}

/** The check of one member (`at`, under `key` of v): false goes out as NO, a changed output is recorded. */
function member(check: string, at: string, key: string): string {
  return `const cur = ${at}, out = ${check}(cur, fixes); if (out === NO) return NO; if (out !== cur) fixes.push([v, ${key}, out]);`;
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

const compiled = new WeakMap<object, Check | null>();

/** The checker of a schema, compiled now, or null when this module leaves the schema to zod. */
export function checkerOf(schema: object): Check | null {
  let c = compiled.get(schema);
  if (c === undefined) {
    const names: string[] = [];
    const values: unknown[] = [];
    const program = new Program((kind, value) => {
      names.push(`r${names.length}`);
      values.push(kind === 'default' ? () => (value as Def).defaultValue : value);
      return names[names.length - 1];
    });
    const root = program.root(schema);
    c = root === undefined ? null : (new Function('NO', 'has', 'isPlainObject', ...names, `${program.fns.join('\n')}\nreturn ${root};`)(NO, has, isPlainObject, ...values) as Check);
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
  return check ? runCheck(check, data) : undefined;
}

/** A default the build can write as a literal: JSON data alone (a fresh copy at each evaluation). */
function jsonData(v: unknown): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(jsonData);
  return isPlainObject(v) && !has.call(v, '__proto__') && Object.values(v).every(jsonData);
}

/**
 * The source of src/client/schemas/precompiled.ts as the build writes it: the checkers of `roots`
 * (by key) made now, for every schema this module decides, with the transforms found among
 * `transforms` (the exports of transforms.ts: the module imports them from there) or JavaScript's
 * own String and Number. A schema with any other function is left out (zod checks it).
 */
export function precompiledModule(roots: Record<string, object>, transforms: Record<string, unknown>): string {
  const consts: string[] = [];
  const program = new Program((kind, value) => {
    let expr: string | undefined;
    if (kind === 'pattern') expr = String(value);
    else if (kind === 'default') {
      const d = (value as Def).defaultValue;
      expr = jsonData(d) ? `() => (${JSON.stringify(d)})` : undefined;
    } else if (value === String || value === Number) expr = (value as { name: string }).name;
    else {
      const name = Object.keys(transforms).find((k) => transforms[k] === value);
      expr = name && `T.${name}`;
    }
    if (expr === undefined) return undefined;
    consts.push(`const r${consts.length} = ${expr};`);
    return `r${consts.length - 1}`;
  });
  const entries: string[] = [];
  for (const [key, schema] of Object.entries(roots)) {
    const root = program.root(schema);
    if (root) entries.push(`  ${JSON.stringify(key)}: ${root},`);
  }
  return [
    '// Made by the build (precompiledModule in src/client/schemas/in-place.ts) from the zod schemas.',
    "import { NO, has, isPlainObject } from './check';",
    "import * as T from './transforms';",
    ...consts,
    ...program.fns,
    `export const PRECOMPILED = {\n${entries.join('\n')}\n};`,
    '',
  ].join('\n');
}

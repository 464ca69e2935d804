// A strict JSON reader for bulk input. JSON.parse cannot be used: it silently keeps the last
// of two duplicate keys and does not say where a value starts. This one reports duplicate keys,
// unpaired surrogates and syntax errors with their offsets, and reads a value at a time.

export class JsonSyntaxError extends Error {
  constructor(message: string, readonly offset: number) {
    super(message);
  }
}

/** A problem inside a syntactically valid value (a duplicate key, an unpaired surrogate). */
export interface JsonIssue {
  offset: number;
  message: string;
}

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

const isWs = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const hasOwn = Object.prototype.hasOwnProperty;

export class JsonReader {
  pos: number;
  issues: JsonIssue[] = [];

  constructor(readonly text: string, start = 0, readonly end = text.length) {
    this.pos = start;
  }

  skipWs(): void {
    while (this.pos < this.end && isWs(this.text.charCodeAt(this.pos))) this.pos++;
  }

  atEnd(): boolean {
    return this.pos >= this.end;
  }

  peek(): string {
    return this.pos < this.end ? this.text[this.pos] : '';
  }

  fail(message: string, at = this.pos): never {
    throw new JsonSyntaxError(message, at);
  }

  private unexpected(expected: string): never {
    if (this.atEnd()) this.fail(`unexpected end of input, expected ${expected} (truncated?)`);
    const ch = this.text[this.pos];
    const shown = /[\x00-\x1f\x7f-\x9f]/.test(ch) ? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}` : ch;
    this.fail(`unexpected '${shown}', expected ${expected}`);
  }

  expect(ch: string, what = `'${ch}'`): void {
    this.skipWs();
    if (this.text[this.pos] !== ch || this.atEnd()) this.unexpected(what);
    this.pos++;
  }

  /** One JSON value starting at the current position (leading whitespace skipped). */
  value(depth = 0): JsonValue {
    if (depth > 200) this.fail('nesting too deep');
    this.skipWs();
    const ch = this.peek();
    if (ch === '{') return this.object(depth);
    if (ch === '[') return this.array(depth);
    if (ch === '"') return this.string();
    if (ch === '-' || (ch >= '0' && ch <= '9')) return this.number();
    if (this.text.startsWith('true', this.pos) && this.pos + 4 <= this.end) {
      this.pos += 4;
      return true;
    }
    if (this.text.startsWith('false', this.pos) && this.pos + 5 <= this.end) {
      this.pos += 5;
      return false;
    }
    if (this.text.startsWith('null', this.pos) && this.pos + 4 <= this.end) {
      this.pos += 4;
      return null;
    }
    this.unexpected('a JSON value');
  }

  private object(depth: number): { [k: string]: JsonValue } {
    this.pos++; // {
    const obj: { [k: string]: JsonValue } = {};
    this.skipWs();
    if (this.peek() === '}') {
      this.pos++;
      return obj;
    }
    for (;;) {
      this.skipWs();
      if (this.peek() !== '"') this.unexpected('a property name in double quotes');
      const keyAt = this.pos;
      const key = this.string();
      // every key is an own property of obj (the one named "__proto__" too): a repeat is one already there
      if (hasOwn.call(obj, key)) this.issues.push({ offset: keyAt, message: `duplicate key ${JSON.stringify(key)}` });
      this.expect(':');
      const v = this.value(depth + 1);
      // defineProperty: a key named "__proto__" must stay a plain own property (an assignment would set the prototype)
      if (key === '__proto__') Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
      else obj[key] = v;
      this.skipWs();
      const c = this.peek();
      if (c === ',') {
        this.pos++;
        continue;
      }
      if (c === '}') {
        this.pos++;
        return obj;
      }
      this.unexpected("',' or '}'");
    }
  }

  private array(depth: number): JsonValue[] {
    this.pos++; // [
    const arr: JsonValue[] = [];
    this.skipWs();
    if (this.peek() === ']') {
      this.pos++;
      return arr;
    }
    for (;;) {
      arr.push(this.value(depth + 1));
      this.skipWs();
      const c = this.peek();
      if (c === ',') {
        this.pos++;
        continue;
      }
      if (c === ']') {
        this.pos++;
        return arr;
      }
      this.unexpected("',' or ']'");
    }
  }

  string(): string {
    const start = this.pos;
    this.pos++; // opening quote
    let out = '';
    let runStart = this.pos;
    for (;;) {
      if (this.pos >= this.end) this.fail('unterminated string (truncated?)', start);
      const code = this.text.charCodeAt(this.pos);
      if (code === 0x22) {
        out += this.text.slice(runStart, this.pos);
        this.pos++;
        break;
      }
      if (code < 0x20) this.fail('control character inside a string (must be escaped)');
      if (code === 0x5c) {
        out += this.text.slice(runStart, this.pos);
        this.pos++;
        if (this.pos >= this.end) this.fail('unterminated string (truncated?)', start);
        const e = this.text[this.pos];
        if (hasOwn.call(ESCAPES, e)) {
          out += ESCAPES[e];
          this.pos++;
        } else if (e === 'u') {
          const hex = this.text.slice(this.pos + 1, this.pos + 5);
          if (!/^[0-9a-fA-F]{4}$/.test(hex) || this.pos + 5 > this.end) this.fail('bad \\u escape');
          out += String.fromCharCode(parseInt(hex, 16));
          this.pos += 5;
        } else {
          this.fail(`bad escape '\\${e}'`);
        }
        runStart = this.pos;
        continue;
      }
      this.pos++;
    }
    if (hasLoneSurrogate(out)) this.issues.push({ offset: start, message: 'a string holds an unpaired UTF-16 surrogate (not valid Unicode text)' });
    return out;
  }

  private number(): number {
    const re = NUMBER;
    re.lastIndex = this.pos;
    const m = re.exec(this.text);
    if (!m || this.pos + m[0].length > this.end) this.unexpected('a number');
    this.pos += m[0].length;
    const next = this.peek();
    if (next && /[0-9.eE+\-a-zA-Z_]/.test(next)) this.unexpected('a delimiter after the number');
    return Number(m[0]);
  }
}

export function hasLoneSurrogate(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
      return true;
    }
    if (c >= 0xdc00 && c <= 0xdfff) return true;
  }
  return false;
}

/** Offsets of line starts, for offset -> 1-based line/column. */
export class LineIndex {
  private starts: number[] = [0];
  constructor(text: string) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 0x0a) this.starts.push(i + 1);
  }
  line(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
  column(offset: number): number {
    return offset - this.starts[this.line(offset) - 1] + 1;
  }
}

// A table cell's text: one line; control characters (escape codes from data included), bidi
// controls and invisible characters made visible escapes (clean.ts, `line`), so the widths
// measured are drawn. Its own module so that a worker thread making a locker table's rows (see
// table-rows.ts) loads it without the table renderer and chalk.
import { clean, NOT_PLAIN } from './clean';

export function cellText(v: unknown): string {
  let s: string;
  if (v === null || v === undefined) s = '';
  else if (typeof v === 'string') s = v;
  else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') s = String(v);
  else s = JSON.stringify(v);
  // one test for the common cell (a big locker's table has over a million): nothing to change
  if (!NOT_PLAIN.test(s)) return s;
  return clean(s, 'line').replace(/\t/g, ' ');
}

// Small value formatters shared by the views (pure, no terminal knowledge).

export function duration(seconds: unknown): string {
  const s = typeof seconds === 'string' ? Number(seconds) : seconds;
  if (typeof s !== 'number' || !Number.isFinite(s)) return '';
  const m = Math.floor(s / 60);
  const r = Math.round(s % 60);
  if (m >= 60) return `${Math.floor(m / 60)}:${String(m % 60).padStart(2, '0')}:${String(r).padStart(2, '0')}`;
  return `${m}:${String(r).padStart(2, '0')}`;
}

/** A calendar day (a release date, sent as midnight UTC): its date as sent, YYYY-MM-DD. */
export function day(value: unknown): string {
  if (typeof value !== 'string' || !value) return '';
  return /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : value;
}

const two = (n: number) => String(n).padStart(2, '0');

/**
 * A moment (a purchase, an update) in the one short form tables and sheets show: local time,
 * `YYYY-MM-DD HH:MM`. A bare date stays as it is; anything unreadable is shown as received.
 */
export function when(value: unknown): string {
  if (typeof value !== 'string' || !value) return '';
  // a locker's tracks mostly share their release's purchase moment: the last answer is kept (for
  // this time zone: one process may run several commands, each with its own TZ)
  const key = `${value}\u0000${process.env.TZ ?? ''}`;
  if (key === lastWhen[0]) return lastWhen[1];
  lastWhen = [key, shortLocal(value)];
  return lastWhen[1];
}

let lastWhen: [string, string] = ['', ''];

/**
 * when() for the rows of one page, made at once (the time zone cannot change meanwhile): the last
 * answer is kept without reading process.env.TZ at each call, which took most of when()'s time
 * over a big locker's 180,000 rows (an environment lookup each: ~45 ms of a table's walk).
 */
export function pageWhen(): (value: unknown) => string {
  let lastValue = '';
  let lastText = '';
  return (value) => {
    if (typeof value !== 'string' || !value) return '';
    if (value !== lastValue) {
      lastValue = value;
      lastText = shortLocal(value);
    }
    return lastText;
  };
}

function shortLocal(value: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
  if (!/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(value)) return value;
  const t = Date.parse(value);
  if (!Number.isFinite(t)) return value;
  const d = new Date(t);
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

export function titleWithVersion(o: { title?: unknown; version?: unknown } | undefined): string {
  if (!o) return '';
  const t = String(o.title ?? '');
  return o.version ? `${t} (${String(o.version)})` : t;
}

interface PriceLike {
  currencyCode?: string;
  servicePrice?: string | number | null;
  recommendedRetailPrice?: string | number | null;
}

export function price(p: PriceLike | undefined): string {
  if (!p) return '';
  const v = p.servicePrice ?? p.recommendedRetailPrice;
  if (v === null || v === undefined || v === '') return '';
  const n = Number(v);
  return `${Number.isFinite(n) ? n.toFixed(2) : String(v)} ${p.currencyCode ?? ''}`.trim();
}

/** The price of the first package a release or track is sold in. */
export function firstPackagePrice(o: { download?: { packages?: { price?: PriceLike }[] } } | undefined): string {
  return price(o?.download?.packages?.[0]?.price);
}

// Small value formatters shared by the views (pure, no terminal knowledge).

export function duration(seconds: unknown): string {
  const s = typeof seconds === 'string' ? Number(seconds) : seconds;
  if (typeof s !== 'number' || !Number.isFinite(s)) return '';
  const m = Math.floor(s / 60);
  const r = Math.round(s % 60);
  if (m >= 60) return `${Math.floor(m / 60)}:${String(m % 60).padStart(2, '0')}:${String(r).padStart(2, '0')}`;
  return `${m}:${String(r).padStart(2, '0')}`;
}

export function date(value: unknown): string {
  if (typeof value !== 'string' || !value) return '';
  return value.slice(0, 10);
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

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function firstPackagePrice(o: any): string {
  return price(o?.download?.packages?.[0]?.price);
}

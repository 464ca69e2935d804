// The XML form of API bodies (the locker and errors), by the service's convention: root
// <response status=".." version="1.2">, entity ids as attributes, arrays as repeated elements
// named after their key, `disc` shown as `discNumber`, timestamps with an offset.

const RENAME: Record<string, string> = { disc: 'discNumber' };

export function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}

const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function text(v: unknown): string {
  if (typeof v === 'string') return escapeXml(ISO_Z.test(v) ? v.replace(/Z$/, '+00:00') : v);
  return escapeXml(String(v));
}

function element(name: string, value: unknown, out: string[]): void {
  if (value === undefined || value === null) return;
  const tag = RENAME[name] ?? name;
  if (Array.isArray(value)) {
    for (const item of value) element(name, item, out);
    return;
  }
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    let attrs = '';
    if (obj.id !== undefined && obj.id !== null && typeof obj.id !== 'object') attrs = ` id="${text(obj.id)}"`;
    const children: string[] = [];
    for (const [k, v] of Object.entries(obj)) {
      if (k === 'id' && attrs) continue;
      element(k, v, children);
    }
    out.push(children.length ? `<${tag}${attrs}>${children.join('')}</${tag}>` : `<${tag}${attrs}/>`);
    return;
  }
  const t = text(value);
  out.push(t === '' ? `<${tag}/>` : `<${tag}>${t}</${tag}>`);
}

/** A success body: every key but status/version/schema becomes a child of <response>. */
export function renderXml(body: Record<string, unknown>): string {
  const status = String(body.status ?? 'ok');
  const version = String(body.version ?? '1.2');
  const out: string[] = [];
  for (const [k, v] of Object.entries(body)) {
    if (k === 'status' || k === 'version' || k === 'schema') continue;
    element(k, v, out);
  }
  return `<?xml version="1.0" encoding="utf-8"?>\n<response status="${escapeXml(status)}" version="${escapeXml(version)}">${out.join('')}</response>\n`;
}

export function renderXmlError(code: number, message: string): string {
  return `<?xml version="1.0" encoding="utf-8"?>\n<response status="error" version="1.2"><error code="${code}"><errorMessage>${escapeXml(message)}</errorMessage></error></response>\n`;
}

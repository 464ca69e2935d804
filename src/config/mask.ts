// Secret masking: what auth status and profile list show of a key or token, and the last line
// of defence that scrubs any known secret from text before it reaches a terminal or a file.

const ELLIPSIS = '\u2026';

/** A key or token as people may see it: '…' and its last 4 characters; short values fully hidden. */
export function maskSecret(v?: string): string {
  if (v === undefined || v === '') return '(none)';
  if (v.length <= 4) return '****';
  return ELLIPSIS + v.slice(-4);
}

/** RFC 3986 percent-encoding as OAuth 1.0a uses it (encodeURIComponent leaves !*'() alone). */
function rfc3986(s: string): string {
  return encodeURIComponent(s).replace(/[!*'()]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

/** Every form in which a secret may appear in a URL, a header, a body or a message. */
function formsOf(secret: string): string[] {
  const forms = new Set<string>([secret]);
  for (const enc of [encodeURIComponent(secret), rfc3986(secret)]) {
    forms.add(enc);
    forms.add(enc.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()));
    // an encoded value encoded again (OAuth base strings, query strings inside a URL)
    forms.add(encodeURIComponent(enc));
  }
  forms.add(encodeURIComponent(secret).replace(/%20/g, '+'));
  return [...forms];
}

/** Replaces every occurrence of every non-empty secret (plain or percent-encoded) with '****'. */
export function redact(text: string, secrets: readonly (string | undefined | null)[]): string {
  const forms = new Set<string>();
  for (const s of secrets) {
    if (typeof s !== 'string' || s === '') continue;
    for (const f of formsOf(s)) forms.add(f);
  }
  if (forms.size === 0 || text === '') return text;
  // longest first, so a secret that contains another is replaced whole
  const ordered = [...forms].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(ordered.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  return text.replace(pattern, '****');
}

// scheme, the slashes (WHATWG parsers accept none, or backslashes, for http and https), then the
// authority's user part: up to its last '@', as a URL parser reads it. A value refused as no URL
// is quoted too, so the typed forms with no scheme ('//user:pass@host') or a scheme without its
// colon ('https//user:pass@host') are read the same way.
const URL_USERINFO = /^(\s*(?:[A-Za-z][A-Za-z0-9+.-]*(?::[/\\]*|[/\\]+)|[/\\]+))([^/?#\\]*)@/;

/**
 * A URL as people may see it (auth status, profile list, messages): the password of
 * `https://user:pass@host` becomes '****', and a user part alone (`https://TOKEN@host`, often a
 * token) too. Anything else is shown as given, also when it is not a valid URL.
 */
export function maskUrlCredentials(url: string): string {
  return url.replace(URL_USERINFO, (_, head: string, userinfo: string) => {
    const colon = userinfo.indexOf(':');
    return `${head}${colon >= 0 ? `${userinfo.slice(0, colon)}:****` : '****'}@`;
  });
}

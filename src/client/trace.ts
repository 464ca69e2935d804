// --verbose: one line per request and per answer, with every secret masked. Also the masking of
// URLs that error messages carry (a query-signed URL holds the signature and the token).
import { percentEncode, type Credentials } from './oauth';

const SECRET_PARAMS = new Set(['oauth_signature', 'oauth_token', 'oauth_token_secret', 'oauth_consumer_secret']);

export class Tracer {
  /** each secret as it may appear in a line: as it is and percent-encoded (worked out once) */
  private readonly secrets: string[];

  constructor(
    private readonly out: ((line: string) => void) | undefined,
    credentials: Credentials,
  ) {
    this.secrets = [];
    for (const s of [credentials.consumerSecret, credentials.tokenSecret, credentials.token]) {
      if (s && s.length >= 4) this.secrets.push(...encodedForms(s, 1));
    }
  }

  get on(): boolean {
    return this.out !== undefined;
  }

  line(text: string): void {
    if (!this.out) return;
    try {
      this.out(this.scrub(text));
    } catch {
      // a tracer must never break a request
    }
  }

  /** Removes any literal secret that slipped into a line. */
  scrub(text: string): string {
    let out = text;
    for (const s of this.secrets) if (out.includes(s)) out = out.split(s).join('***');
    return out;
  }

  maskUrl(url: string): string {
    return this.scrub(maskQuery(url));
  }
}

/**
 * A value as a server may quote it back: as it is, and percent-encoded `depth` times (once: a
 * query or header; twice: a URL quoted inside another), with upper- or lower-case hex digits
 * (RFC 3986 makes them equivalent, and servers and proxies rewrite them either way).
 */
function encodedForms(value: string, depth: number): string[] {
  const forms = new Set([value]);
  let enc = value;
  for (let i = 0; i < depth; i++) {
    enc = percentEncode(enc);
    forms.add(enc);
    forms.add(enc.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()));
  }
  // longest first: a form that holds another is masked whole
  return [...forms].sort((a, b) => b.length - a.length);
}

/**
 * Masks a request's signature where a text quotes it: bare, percent-encoded once or twice, or
 * form-decoded (a server that read the base64 '+' of a query as a space).
 */
export function scrubSignature(text: string, signature: string | undefined): string {
  if (!signature || signature.length < 8) return text;
  let out = text;
  const forms = encodedForms(signature, 2);
  if (signature.includes('+')) forms.push(signature.replace(/\+/g, ' '));
  for (const form of forms) if (out.includes(form)) out = out.split(form).join('***');
  return out;
}

const MAYBE_SECRET = /oauth|secret|%/i;

// A secret parameter quoted in free text (a server's error message that echoes the request): its
// name, then = or : (bare, in quotes, or percent-encoded as in a URL that carries the header),
// then its value up to what ends it in a header, a query, JSON or their percent-encodings. The
// name is bounded (the text is a hostile server's: an unbounded run of letters before "secret"
// made each position scan the rest of the run, quadratic in megabytes of letters).
const SECRET_IN_TEXT =
  /(oauth_(?:signature|token(?:_secret)?|consumer_secret)|[A-Za-z0-9_-]{0,40}secret[A-Za-z0-9_-]{0,40})((?:"|%22)?\s*(?:=|:|%3D)\s*(?:"|'|%22)?)((?:(?!%2[026C])[^\s"'&,;<>])*)/gi;
const MAYBE_SECRET_IN_TEXT = /oauth_(?:signature|token)|secret/i;

/**
 * Masks the values of secret parameters quoted in free text: a server's message that echoes the
 * request's Authorization header or query (`oauth_signature="…"`, `oauth_token=…`, or either
 * percent-encoded inside a URL). Values it cannot see by name (a signature quoted bare) are the
 * request core's to scrub: it knows what it sent.
 */
export function maskSecretsInText(text: string): string {
  if (!MAYBE_SECRET_IN_TEXT.test(text)) return text;
  return text.replace(SECRET_IN_TEXT, (m, name: string, sep: string, value: string) => {
    // a word with "secret" in it before a bare colon is prose ("Top secret: the album"), not a parameter
    if (!value || (!/^oauth_/i.test(name) && sep.includes(':') && !/^("|%22)/i.test(sep))) return m;
    return `${name}${sep}***`;
  });
}

/** Masks the values of oauth_signature, oauth_token and other secret parameters in a URL. */
export function maskQuery(url: string): string {
  // nothing to mask where no parameter's name says oauth or secret, nor may once decoded
  if (!MAYBE_SECRET.test(url)) return url;
  return url.replace(/([?&])([^=&#]+)=([^&#]*)/g, (m, sep: string, key: string, value: string) => {
    const k = decodeURIComponentSafe(key);
    if (SECRET_PARAMS.has(k) || /secret/i.test(k)) return `${sep}${key}=***`;
    if (k === 'oauth_consumer_key') return `${sep}${key}=${maskKey(decodeURIComponentSafe(value))}`;
    return m;
  });
}

/**
 * The fields of an error that may quote a server's text and are printed: its message, the API's
 * message, a reason, a Location (each cut short where it is made). Not HttpError's body, the
 * answer whole (up to the body cap), which nothing prints.
 */
const QUOTING_FIELDS = ['message', 'apiMessage', 'reason', 'location'] as const;

/** Applies `scrub` to every text of `err` that may quote the server: what prints it prints no secret. */
export function scrubError<E extends Error>(err: E, scrub: (text: string) => string): E {
  const e = err as unknown as Record<string, unknown>;
  for (const k of QUOTING_FIELDS) {
    const v = e[k];
    if (typeof v === 'string' && v) {
      const clean = scrub(v);
      // own data properties (an error's message, its class's readonly fields): kept as they are, but for the value
      if (clean !== v) e[k] = clean;
    }
  }
  return err;
}

/** The OAuth parameters of an Authorization header as a trace shows them. */
export function maskOauth(oauth: Record<string, string>): string {
  return Object.keys(oauth)
    .sort()
    .map((k) => {
      if (SECRET_PARAMS.has(k)) return `${k}="***"`;
      if (k === 'oauth_consumer_key') return `${k}="${maskKey(oauth[k])}"`;
      if (k === 'oauth_nonce') return `${k}="…"`;
      return `${k}="${oauth[k]}"`;
    })
    .join(', ');
}

function maskKey(v: string): string {
  return v.length > 4 ? `…${v.slice(-4)}` : '***';
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

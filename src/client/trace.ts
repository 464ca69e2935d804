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
      if (s && s.length >= 4) {
        this.secrets.push(s);
        const enc = percentEncode(s);
        if (enc !== s) this.secrets.push(enc);
      }
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

const MAYBE_SECRET = /oauth|secret|%/i;

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

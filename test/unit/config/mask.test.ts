import { describe, expect, it } from 'vitest';
import { maskSecret, maskUrlCredentials, redact } from '../../../src/config/mask';

describe('maskSecret', () => {
  it('shows only the last 4 characters', () => {
    expect(maskSecret('abcdef123456')).toBe('\u20263456');
    expect(maskSecret('abcde')).toBe('\u2026bcde');
  });
  it('hides short values entirely and names missing ones', () => {
    expect(maskSecret('abcd')).toBe('****');
    expect(maskSecret('a')).toBe('****');
    expect(maskSecret('')).toBe('(none)');
    expect(maskSecret(undefined)).toBe('(none)');
  });
});

describe('redact', () => {
  it('replaces every occurrence of every secret', () => {
    expect(redact('a s3cret b s3cret c t0ken', ['s3cret', 't0ken'])).toBe('a **** b **** c ****');
  });
  it('replaces percent-encoded forms (encodeURIComponent and RFC 3986, either hex case)', () => {
    const s = "p@ss w/rd!*'()";
    const enc = encodeURIComponent(s);
    const rfc = enc.replace(/[!*'()]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
    const text = `plain=${s} enc=${enc} rfc=${rfc} lower=${rfc.toLowerCase()} twice=${encodeURIComponent(rfc)}`;
    const out = redact(text, [s]);
    expect(out).toBe('plain=**** enc=**** rfc=**** lower=**** twice=****');
  });
  it('ignores empty and missing secrets, and handles regex characters', () => {
    expect(redact('nothing here', ['', undefined, null])).toBe('nothing here');
    expect(redact('x a.b*c y', ['a.b*c'])).toBe('x **** y');
    expect(redact('axbxc', ['a.b'])).toBe('axbxc');
  });
  it('replaces a longer secret whole when it contains a shorter one', () => {
    expect(redact('[abcdef] [abc]', ['abc', 'abcdef'])).toBe('[****] [****]');
  });
});

describe('maskUrlCredentials', () => {
  it('masks the password of a URL, keeping the user and everything else as given', () => {
    expect(maskUrlCredentials('https://user:pass@api.example.com/v1')).toBe('https://user:****@api.example.com/v1');
    expect(maskUrlCredentials('http://alice:S3cret@127.0.0.1:8080')).toBe('http://alice:****@127.0.0.1:8080');
    expect(maskUrlCredentials('https://user:@host')).toBe('https://user:****@host');
  });
  it('masks up to the last @ of the authority, as a URL parser reads it; not an @ in the path or query', () => {
    expect(maskUrlCredentials('https://user:p@ss@host:8/x?y=a@b')).toBe('https://user:****@host:8/x?y=a@b');
    expect(maskUrlCredentials('https://host/p@x')).toBe('https://host/p@x');
    expect(maskUrlCredentials('https://host?q=a:b@c')).toBe('https://host?q=a:b@c');
  });
  it('masks a user part alone (often a token)', () => {
    expect(maskUrlCredentials('https://ghp_TOKEN123@host/api')).toBe('https://****@host/api');
  });
  it('also in forms a URL parser accepts or refuses: no slashes, backslashes, other schemes, leading blanks', () => {
    expect(maskUrlCredentials('http:u:pw@h')).toBe('http:u:****@h');
    expect(maskUrlCredentials('https:\\\\a:b@h/x')).toBe('https:\\\\a:****@h/x');
    expect(maskUrlCredentials('ftp://bob:Pw0rd@x')).toBe('ftp://bob:****@x');
    expect(maskUrlCredentials('  https://a:b@h')).toBe('  https://a:****@h');
  });
  it('also in a value refused as no URL: no scheme, or a scheme without its colon (MCAT_BASE_URL=//user:pass@host)', () => {
    expect(maskUrlCredentials('//u:PW@127.0.0.1:1')).toBe('//u:****@127.0.0.1:1');
    expect(maskUrlCredentials('\\\\u:PW@h')).toBe('\\\\u:****@h');
    expect(maskUrlCredentials('/u:PW@h/x')).toBe('/u:****@h/x');
    expect(maskUrlCredentials('https//u:PW@h')).toBe('https//u:****@h');
    expect(maskUrlCredentials('//TOKEN@h')).toBe('//****@h');
  });
  it('leaves a URL without credentials, and text that is no URL, unchanged', () => {
    for (const s of ['https://api.example.com', 'https://api.example.com/', 'not a url', '', 'user@example.com']) expect(maskUrlCredentials(s)).toBe(s);
  });
});

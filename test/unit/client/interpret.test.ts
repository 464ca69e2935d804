// interpret(): what an answer's body stands for, told from its first characters (the common JSON
// answer without a copy of its body) and its envelope.
import { describe, expect, it } from 'vitest';
import { interpret, xmlReady } from '../../../src/client/interpret';
import { maskSecretsInText } from '../../../src/client/trace';
import { ApiError, AuthError, HttpError, RedirectError, ResponseError } from '../../../src/client/errors';

const json = { 'content-type': 'application/json' };
const ok = '{"status":"ok","version":"1.2","playlist":{"id":"a"}}';

describe('interpret', () => {
  it('reads JSON after leading white space, whatever the content type says', () => {
    for (const text of [ok, ` \n\t${ok}`]) {
      expect(interpret(200, json, text)).toEqual({ status: 'ok', version: '1.2', playlist: { id: 'a' } });
      expect(interpret(200, { 'content-type': 'text/html' }, text)).toEqual({ status: 'ok', version: '1.2', playlist: { id: 'a' } });
    }
    expect(interpret(200, json, '[1,2]')).toEqual([1, 2]);
    // the transport drops a byte order mark when it decodes: one still here is the body's text
    for (const text of [`\uFEFF${ok}`, '\uFEFF[]', `\u00a0${ok}`]) expect(() => interpret(200, json, text)).toThrow(/malformed JSON/);
  });

  it('refuses a truncated body, an error envelope sent with 200, and a status that is not ok', () => {
    expect(() => interpret(200, json, ok.slice(0, 30), undefined, 'playlist')).toThrow(ResponseError);
    expect(() => interpret(200, json, '\uFEFF{"status":"ok"', undefined, 'playlist')).toThrow(/playlist: malformed JSON/);
    const e = (() => {
      try {
        interpret(200, json, '{"status":"error","error":{"code":2001,"errorMessage":"no such playlist"}}');
      } catch (err) {
        return err;
      }
    })();
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).code).toBe(2001);
    expect(() => interpret(200, json, '{"status":"pending","version":"1.2"}')).toThrow(/unrecognised response status "pending"/);
    expect(() => interpret(401, json, '{"status":"error","error":{"code":1001,"errorMessage":"bad token"}}')).toThrow(AuthError);
  });

  it('tells OAuth errors, HTML pages and plain text from JSON by their first characters', () => {
    expect(() => interpret(401, {}, 'OAuth authentication error: invalid signature')).toThrow(AuthError);
    expect(() => interpret(200, {}, '\uFEFF  <!DOCTYPE html><title>Gateway</title>')).toThrow(/expected JSON or XML, got an HTML page \("Gateway"\)/);
    expect(() => interpret(502, {}, '<html><h1>Bad gateway</h1></html>')).toThrow(HttpError);
    expect(() => interpret(200, {}, 'hello')).toThrow(/got plain text/);
    expect(interpret(200, {}, ' \n')).toBeUndefined();
  });
});

describe('interpret: a server that quotes the signed request', () => {
  const header = 'OAuth oauth_consumer_key="key1", oauth_signature="AbCd%2BeF%3D", oauth_token="tok-1234", oauth_version="1.0"';
  const query = '/1.2/user/locker?page=1&oauth_token=tok-1234&oauth_signature=AbCd%2BeF%3D';
  const thrown = (f: () => unknown): Error & Record<string, unknown> => {
    try {
      f();
    } catch (e) {
      return e as Error & Record<string, unknown>;
    }
    throw new Error('did not throw');
  };
  const secretFree = (e: Error & Record<string, unknown>) => {
    for (const k of ['message', 'apiMessage', 'reason', 'location']) {
      const v = String(e[k] ?? '');
      expect(v, k).not.toMatch(/AbCd|tok-1234/);
    }
  };

  it('masks the signature and token in API errors, OAuth errors, HTML and text pages, malformed JSON and redirects', () => {
    const api = thrown(() => interpret(400, json, JSON.stringify({ status: 'error', error: { code: 1002, errorMessage: `bad ${header} at ${query}` } })));
    expect(api).toBeInstanceOf(ApiError);
    expect(api.message).toContain('oauth_signature="***"');
    expect(api.message).toContain('oauth_token=***');
    expect(api.message).toContain('oauth_consumer_key="key1"');
    secretFree(api);
    secretFree(thrown(() => interpret(401, { 'content-type': 'text/plain' }, `OAuth authentication error: invalid signature ${header}`)));
    secretFree(thrown(() => interpret(502, { 'content-type': 'text/html' }, `<html><title>${query}</title></html>`)));
    secretFree(thrown(() => interpret(400, { 'content-type': 'text/plain' }, `nope ${header}`)));
    secretFree(thrown(() => interpret(200, json, `{"x": "${query}`)));
    // a parameter named like a secret is masked; prose with the word in it is not
    const json2 = thrown(() => interpret(400, json, JSON.stringify({ status: 'error', error: { code: 2001, errorMessage: 'Top secret: the album; {"client_secret":"zz9"} consumer_secret=yy8' } })));
    expect(json2.message).toBe('Top secret: the album; {"client_secret":"***"} consumer_secret=***');
    const moved = thrown(() => interpret(302, { location: `https://elsewhere.example/?from=${encodeURIComponent(header)}` }, ''));
    expect(moved.message).toContain('oauth_signature%3D%22***%22');
    secretFree(moved);
  });
});

describe('interpret: messages a server makes huge', () => {
  it('quotes 300 characters of an API error or an OAuth reason, and masks in time linear in the text', () => {
    const huge = 'secret' + 'a'.repeat(2_000_000);
    const t0 = performance.now();
    let e: unknown;
    try {
      interpret(400, json, JSON.stringify({ status: 'error', error: { code: 1002, errorMessage: huge } }));
    } catch (err) {
      e = err;
    }
    expect((e as ApiError).apiMessage).toHaveLength(300);
    expect((e as ApiError).apiMessage.endsWith('a…')).toBe(true);
    try {
      interpret(401, { 'content-type': 'text/plain' }, `OAuth authentication error: ${huge}`);
    } catch (err) {
      e = err;
    }
    expect((e as AuthError).reason).toHaveLength(300);
    expect(performance.now() - t0).toBeLessThan(2000);
    // the masking itself, on a megabyte of letters after "secret" (it was quadratic: minutes)
    const t1 = performance.now();
    expect(maskSecretsInText(`secret ${'a'.repeat(1_000_000)} client_secret=x`).endsWith('client_secret=***')).toBe(true);
    expect(performance.now() - t1).toBeLessThan(3000);
  });
});

describe('interpret: a document type in an XML answer', () => {
  const laughs =
    '<?xml version="1.0" encoding="utf-8"?>\n<!-- a comment first --><!DOCTYPE response [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>\n' +
    '<response status="ok" version="1.2"><locker><lockerReleases><page>1</page><lockerRelease><release id="1"><title>&b;</title></release></lockerRelease></lockerReleases></locker></response>';

  it('is refused, read or printed as received (-o xml): the service never sends one, and a reader that expands its entities pays', async () => {
    await xmlReady({ text: laughs, headers: {} });
    for (const bodyWanted of [true, false]) {
      expect(() => interpret(200, {}, laughs, undefined, 'locker', bodyWanted)).toThrow(ResponseError);
      expect(() => interpret(200, {}, laughs, undefined, 'locker', bodyWanted)).toThrow(/^locker: the XML declares a document type/);
    }
    // in a title (escaped, or in CDATA) the words are text
    const inText = '<response status="ok" version="1.2"><release id="1"><title>&lt;!DOCTYPE x&gt; <![CDATA[<!DOCTYPE y>]]></title></release></response>';
    expect(interpret(200, {}, inText, undefined, 'release')).toMatchObject({ status: 'ok', release: { id: 1 } });
  });

  it('in an error page (XHTML) is the HTTP error it stands for', async () => {
    const page = '<?xml version="1.0"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd"><html><head><title>Bad gateway</title></head></html>';
    await xmlReady({ text: page, headers: {} });
    expect(() => interpret(502, {}, page)).toThrow(HttpError);
  });
});

describe('a 401 whose body is not the API\'s', () => {
  it('is a refusal of the credentials (AuthError, exit 4) whatever a proxy sent with it: nothing, a page, text, JSON or XML of another kind', async () => {
    const bodies: [Record<string, string>, string][] = [
      [{}, ''],
      [{ 'content-type': 'text/html' }, '<html><title>401 Authorization Required</title></html>'],
      [{ 'content-type': 'text/plain' }, 'Unauthorized'],
      [json, '{"message":"Unauthorized"'],
      [{ 'content-type': 'application/xml' }, '<?xml version="1.0"?><!DOCTYPE html><html/>'],
    ];
    for (const [headers, text] of bodies) {
      await xmlReady({ text, headers });
      const e = (() => {
        try {
          interpret(401, headers, text);
        } catch (err) {
          return err;
        }
      })();
      expect(e, text).toBeInstanceOf(AuthError);
      expect((e as AuthError).httpStatus).toBe(401);
    }
    // another status is still the HTTP error it was
    expect(() => interpret(403, { 'content-type': 'text/html' }, '<html><title>No</title></html>')).toThrow(HttpError);
  });
});

describe('a redirect\'s Location with credentials in it', () => {
  it('shows neither the password nor a user part alone', () => {
    const at = (location: string) => {
      try {
        interpret(302, { location }, '', 'https://api.example/1.2/x');
      } catch (e) {
        return e as RedirectError;
      }
      throw new Error('no error');
    };
    expect(at('https://admin:S3cretPw@api.example.net/').message).toBe('the server redirected to https://admin:****@api.example.net/; mcat does not follow redirects');
    expect(at('https://TOKEN123@api.example.net/a').location).toBe('https://****@api.example.net/a');
    expect(at('http://u:p@[bad').message).not.toMatch(/u:p@/);
  });
});

import { describe, expect, it } from 'vitest';
import { PassThrough, Readable } from 'node:stream';
import { readLines } from '../../../src/cli/prompt';
import { checkSecrets } from '../../../src/cli/commands/auth-run';
import { UsageError } from '../../../src/client/errors';

describe('readLines', () => {
  it('reads up to four lines, tolerating CRLF and a missing final newline', async () => {
    expect(await readLines(Readable.from(['key\r\nsecret\r\ntok\r\nts']), 4)).toEqual(['key', 'secret', 'tok', 'ts']);
    expect(await readLines(Readable.from(['key\nsec']), 4)).toEqual(['key', 'sec']);
    expect(await readLines(Readable.from([]), 4)).toEqual([]);
  });
  it('stops after the fourth line without waiting for the end of input', async () => {
    const input = new PassThrough();
    input.write('a\nb\n');
    input.write('c\nd\nextra\n');
    // never ended: readLines must return anyway
    expect(await readLines(input, 4)).toEqual(['a', 'b', 'c', 'd']);
  });
  it('decodes UTF-8 split across chunks', async () => {
    const buf = Buffer.from('kéy\nsécret\n');
    expect(await readLines(Readable.from([buf.subarray(0, 2), buf.subarray(2)]), 4)).toEqual(['kéy', 'sécret']);
  });
});

describe('checkSecrets', () => {
  it('accepts key and secret alone, or with a token pair', () => {
    expect(checkSecrets(['k', 's'], 'x')).toEqual({ consumerKey: 'k', consumerSecret: 's', token: undefined, tokenSecret: undefined });
    expect(checkSecrets(['k', 's', '', ''], 'x')).toEqual({ consumerKey: 'k', consumerSecret: 's', token: undefined, tokenSecret: undefined });
    expect(checkSecrets([' k ', 's', 't', 'ts'], 'x')).toEqual({ consumerKey: 'k', consumerSecret: 's', token: 't', tokenSecret: 'ts' });
  });
  it('refuses an empty key or secret, or half a token pair, without echoing values', () => {
    for (const values of [[], ['', 's'], ['k', ''], ['k', 's', 't', ''], ['k', 's', '', 'SECRETVALUE'], ['k', 'a b']]) {
      let err: unknown;
      try {
        checkSecrets(values, '--with-secrets-from-stdin');
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(values)).toBeInstanceOf(UsageError);
      expect((err as Error).message).not.toContain('SECRETVALUE');
    }
  });
});

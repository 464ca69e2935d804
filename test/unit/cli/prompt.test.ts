import { describe, expect, it } from 'vitest';
import { PassThrough, Readable } from 'node:stream';
import { readLines } from '../../../src/cli/prompt';
import { checkSecrets } from '../../../src/cli/commands/auth/login';
import { UsageError } from '../../../src/cli/errors';

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
  it('refuses an input that goes on without its lines ending (/dev/zero): a usage error, not all of memory', async () => {
    function* zeros(prefix: string) {
      yield Buffer.from(prefix);
      for (;;) yield Buffer.alloc(4096);
    }
    for (const prefix of ['', 'key\nsecret\ntoken\n']) {
      const err = await readLines(Readable.from(zeros(prefix)), 4, '--with-secrets-from-stdin').then(() => undefined, (e: unknown) => e);
      expect(err, JSON.stringify(prefix)).toBeInstanceOf(UsageError);
      expect((err as Error).message).toBe('--with-secrets-from-stdin: more than 64 KiB of input before its 4 lines end; nothing saved');
    }
    // lines that do end are read, however much follows them
    expect(await readLines(Readable.from(zeros('a\nb\nc\nd\n')), 4)).toEqual(['a', 'b', 'c', 'd']);
  });
  it('decodes UTF-8 split across chunks', async () => {
    const buf = Buffer.from('kéy\nsécret\n');
    expect(await readLines(Readable.from([buf.subarray(0, 2), buf.subarray(2)]), 4)).toEqual(['kéy', 'sécret']);
    // one byte at a time, stopping after the second line
    const bytes = Buffer.from('€uro\nsé\nnot read\n');
    expect(await readLines(Readable.from([...bytes].map((b) => Buffer.from([b]))), 2)).toEqual(['€uro', 'sé']);
  });
  it('refuses input that is not UTF-8, naming where it came from, rather than decode it to U+FFFD', async () => {
    for (const bad of [Buffer.from([0x6b, 0xff, 0x0a, 0x73, 0x0a]), Buffer.from('key\nsecret\xe9\n', 'latin1'), Buffer.from([0x6b, 0x0a, 0xe2, 0x82])]) {
      const err = await readLines(Readable.from([bad]), 4, '--with-secrets-from-stdin').then(() => undefined, (e: unknown) => e);
      expect(err, bad.toString('hex')).toBeInstanceOf(UsageError);
      expect((err as Error).message).toBe('--with-secrets-from-stdin: the input is not valid UTF-8 text; nothing saved');
    }
    // what follows the lines asked for is not read, so not judged either
    expect(await readLines(Readable.from([Buffer.from([0x61, 0x0a, 0x62, 0x0a, 0xff, 0x0a])]), 2)).toEqual(['a', 'b']);
  });
});

describe('checkSecrets', () => {
  it('accepts key and secret alone, or with a token pair', () => {
    expect(checkSecrets(['k', 's'], 'x')).toEqual({ consumerKey: 'k', consumerSecret: 's', token: undefined, tokenSecret: undefined });
    expect(checkSecrets(['k', 's', '', ''], 'x')).toEqual({ consumerKey: 'k', consumerSecret: 's', token: undefined, tokenSecret: undefined });
    expect(checkSecrets([' k ', 's', 't', 'ts'], 'x')).toEqual({ consumerKey: 'k', consumerSecret: 's', token: 't', tokenSecret: 'ts' });
  });
  it('refuses U+FFFD (what became of bytes that were not UTF-8, e.g. typed at a terminal in another encoding)', () => {
    expect(() => checkSecrets(['k', 's\uFFFDx'], 'login')).toThrow('login: a value holds U+FFFD, the mark of text that was not UTF-8; nothing saved');
    expect(() => checkSecrets(['k', 's', 't', '\uFFFD'], 'login')).toThrow(UsageError);
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

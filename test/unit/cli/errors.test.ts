// The words and exit codes of what a misbehaving server (or Ctrl-C) ends a run with: each kind
// of timeout, an abort, a body over the cap, a redirect, paging that does not advance.
import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { AbortedError, AuthError, BodyTooLargeError, InputError, PagingError, RedirectError, TimeoutError, type TimeoutPhase } from '../../../src/client/errors';
import { exitCodeFor, formatError, RunRefusedError, UsageError } from '../../../src/cli/errors';
import { checkReportPath } from '../../../src/bulk/report';
import { sizeOption } from '../../../src/cli/context';

const lines = (err: unknown) => formatError(err).split('\n');

describe('timeouts: what timed out, and what to do', () => {
  const cases: [TimeoutPhase, string, RegExp][] = [
    ['connect', 'mcat: could not connect to api.example:443 within 10000 ms', /check the base URL.*--timeout/],
    ['headers', 'mcat: api.example:443 did not answer within 10000 ms (no response headers)', /overloaded.*--timeout/],
    ['body', 'mcat: the answer from api.example:443 did not complete within 10000 ms', /--timeout for a large answer/],
    ['stall', 'mcat: the transfer from api.example:443 stalled: nothing received for 10000 ms', /--timeout \(the longest wait for the next byte\)/],
    ['download', 'mcat: the download did not finish within 10000 ms', /--download-timeout \(or MCAT_DOWNLOAD_TIMEOUT\)/],
  ];
  for (const [phase, line, hint] of cases) {
    it(phase, () => {
      const err = new TimeoutError(10_000, phase, 'api.example:443');
      const [first, second, more] = lines(err);
      expect(first).toBe(line);
      expect(second).toMatch(/^hint: /);
      expect(second).toMatch(hint);
      expect(more).toBeUndefined();
      expect(exitCodeFor(err)).toBe(1);
    });
  }
});

describe('aborts are interruptions (exit 130), never "unexpected error"', () => {
  it('AbortedError', () => {
    expect(lines(new AbortedError('the download was stopped'))).toEqual(['mcat: interrupted: the download was stopped']);
    expect(exitCodeFor(new AbortedError())).toBe(130);
  });

  it("a platform AbortError ('The operation was aborted')", () => {
    const e = new DOMException('The operation was aborted', 'AbortError');
    expect(lines(e)).toEqual(['mcat: interrupted']);
    expect(exitCodeFor(e)).toBe(130);
  });
});

describe('servers that misbehave', () => {
  it('a body over the cap: exit 1, the cap named, how to raise it', () => {
    const e = new BodyTooLargeError(64 * 1024 * 1024, 'api.example');
    expect(lines(e)).toEqual([
      'mcat: the answer from api.example is larger than the 64 MiB cap',
      'hint: if so large an answer is expected, raise the cap with --max-body SIZE or MCAT_MAX_BODY (e.g. 256M)',
    ]);
    expect(exitCodeFor(e)).toBe(1);
  });

  it('a redirect: exit 1, where it pointed, not a schema error', () => {
    const e = new RedirectError(302, 'https://elsewhere.example/x');
    expect(lines(e)[0]).toBe('mcat: the server redirected to https://elsewhere.example/x; mcat does not follow redirects (HTTP 302)');
    expect(lines(e)[1]).toMatch(/^hint: .*--base-url/);
    expect(exitCodeFor(e)).toBe(1);
  });

  it('paging: exit 1; the hint depends on which rule stopped it', () => {
    const stuck = new PagingError('paging stopped: asked for page 2 of the locker, the server answered page 1', 'stuck');
    const cap = new PagingError('paging stopped after 5 pages of the locker: the server still says there is more', 'cap');
    expect(lines(stuck)).toEqual([`mcat: ${stuck.message}`, "hint: the server's paging is broken: read pages one at a time with --page"]);
    expect(lines(cap)[1]).toBe('hint: a longer listing is possible: raise the cap with MCAT_MAX_PAGES');
    expect(exitCodeFor(stuck)).toBe(1);
    expect(exitCodeFor(cap)).toBe(1);
  });
});

describe('sizeOption (--max-body, MCAT_MAX_BODY)', () => {
  it('reads bytes and K/M/G in units of 1024, with an optional B or iB', () => {
    expect(sizeOption('1048576', '--max-body')).toBe(1048576);
    expect(sizeOption('512K', '--max-body')).toBe(512 * 1024);
    expect(sizeOption('64M', '--max-body')).toBe(64 * 1024 * 1024);
    expect(sizeOption('64mb', '--max-body')).toBe(64 * 1024 * 1024);
    expect(sizeOption('1GiB', '--max-body')).toBe(1024 ** 3);
    expect(sizeOption(' 2 m ', '--max-body')).toBe(2 * 1024 * 1024);
    expect(sizeOption(undefined, '--max-body')).toBeUndefined();
  });

  it('refuses anything else, naming where it came from', () => {
    for (const bad of ['', '0', '-1', '1.5M', '12q', 'M', '64 MBs', '99999999999999999999']) {
      expect(() => sizeOption(bad, 'MCAT_MAX_BODY'), bad).toThrow(`MCAT_MAX_BODY must be a size like 64M, 512K or 1048576, got '${bad}'`);
    }
  });
});

describe('input refused before anything was sent: exit 2, one line and its hint', () => {
  it("the layers' InputError and the CLI's UsageError read and exit alike", () => {
    for (const err of [new InputError('--report out is a folder', 'name a file to write the report to'), new UsageError('--report out is a folder', 'name a file to write the report to')]) {
      expect(formatError(err)).toBe('mcat: --report out is a folder\nhint: name a file to write the report to');
      expect(exitCodeFor(err)).toBe(2);
    }
    expect(new UsageError('x')).toBeInstanceOf(InputError);
    expect(new UsageError('x').name).toBe('UsageError');
  });

  it('the bulk engine throws its InputError, not a CLI error (bulk may not import the CLI)', () => {
    const dir = mkdtempSync(`${tmpdir()}/mcat-report-`);
    const thrown = (() => {
      try {
        checkReportPath(dir);
      } catch (e) {
        return e;
      }
    })();
    expect(thrown).toBeInstanceOf(InputError);
    expect((thrown as Error).name).toBe('InputError');
    expect(formatError(thrown)).toBe(`mcat: --report ${dir} is a folder\nhint: name a file to write the report to`);
    expect(exitCodeFor(thrown)).toBe(2);
  });
});

describe('a bulk run every edit of which was refused: exit 4, how many, then the refusal as a single command says it', () => {
  it("another user's data: the access-denied words and hint, not the credentials'", () => {
    const single = lines(new AuthError('Access to resource denied', 401));
    const err = new RunRefusedError('none of the 2 edits could be applied', 'Access to resource denied', 401);
    err.hint = "check the profile's credentials and country with 'mcat auth status'; then run again with --resume";
    expect(single[0]).toMatch(/^mcat: access denied: .*the credentials are fine \(HTTP 401\)$/);
    // no user asked for by id: the hint says another user's, its command shows where an id goes
    expect(single[1]).toMatch(/^hint: for another user's data use their token: a profile per customer \('mcat auth login --profile cust-ID --user-id ID …'\)/);
    expect(lines(err)).toEqual([`mcat: none of the 2 edits could be applied: ${single[0].slice('mcat: '.length)}`, single[1]]);
    expect(exitCodeFor(err)).toBe(4);
  });

  it('a refused signature: the credentials, and the run’s own hint', () => {
    const err = new RunRefusedError('the one edit could not be applied', 'invalid signature', 401);
    err.hint = "check the profile's credentials and country with 'mcat auth status'; then run again with --resume";
    expect(lines(err)).toEqual([
      'mcat: the one edit could not be applied: authentication failed: invalid signature (HTTP 401)',
      "hint: check the profile's credentials and country with 'mcat auth status'; then run again with --resume",
    ]);
    expect(exitCodeFor(err)).toBe(4);
  });
});

// HeldDocument (src/output/held.ts): a document kept until it is whole, in memory or past its
// limit in a spool file that no path reaches; written at commit(), dropped by discard().
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { Readable, Writable } from 'node:stream';
import { HeldDocument } from '../../../src/output/held';
import { useStreams, type StdStreams } from '../../../src/output/streams';

class Sink extends Writable {
  readonly chunks: Buffer[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    this.chunks.push(chunk);
    cb();
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

let out: Sink;
let tmp: string;
const savedTmp = process.env.TMPDIR;
beforeEach(() => {
  out = new Sink();
  useStreams({ stdout: out, stderr: new Sink(), stdin: Readable.from([]) } as unknown as StdStreams);
  // os.tmpdir() reads TMPDIR: the spool's folder goes here, where the test can look
  tmp = mkdtempSync(join(tmpdir(), 'mcat-held-test-'));
  process.env.TMPDIR = tmp;
});
afterEach(() => {
  useStreams(undefined);
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  rmSync(tmp, { recursive: true, force: true });
});

describe('HeldDocument', () => {
  it('writes nothing until commit(), then the pieces in order, cleaned for their mode', async () => {
    const held = new HeldDocument('xml');
    held.add('<response><title>a\u009bb</title>');
    held.add('<title>c</title></response>\n');
    expect(out.text()).toBe('');
    await held.commit();
    expect(out.text()).toBe('<response><title>a&#x9B;b</title><title>c</title></response>\n');
    expect(held.spilled).toBe(false);
  });

  it('past its memory limit: a spool file no path reaches, the same bytes at commit (UTF-8 across read chunks)', async () => {
    const held = new HeldDocument('text', 1024);
    const piece = 'ñ€😀 '.repeat(30_000); // > 1 MiB of UTF-8: read back in several chunks
    held.add('<a>');
    expect(held.spilled).toBe(false);
    held.add(piece);
    expect(held.spilled).toBe(true);
    // the file and its folder were unlinked as soon as the file was open
    expect(readdirSync(tmp)).toEqual([]);
    held.add('</a>\n');
    await held.commit();
    expect(out.text() === `<a>${piece}</a>\n`).toBe(true);
    expect(held.spilled).toBe(false);
  });

  it('discard(): nothing reaches stdout, in memory or spooled', async () => {
    for (const limit of [1 << 20, 1]) {
      const held = new HeldDocument('xml', limit);
      held.add('<response><releases>');
      held.add('<release id="1"/>');
      held.discard();
      expect(held.spilled).toBe(false);
      await held.commit();
      expect(out.text()).toBe('');
    }
  });

  it('a temp dir where no spool can be made: one clear error, nothing written', async () => {
    process.env.TMPDIR = join(tmp, 'no-such-folder');
    const held = new HeldDocument('text', 1);
    expect(() => held.add('more than one byte')).toThrow(/^cannot hold the output back until it is whole: spool file in .*no-such-folder: .*\(ENOENT\)$/);
    await held.commit();
    expect(out.text()).toBe('');
  });
});

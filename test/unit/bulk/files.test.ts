// removeFile: what a bulk run removes its lock claims, temporary files and finished journals with.
import { mkdtempSync, mkdirSync, readFileSync, symlinkSync, writeFileSync, existsSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeFile } from '../../../src/bulk/files';

describe('removeFile', () => {
  it('removes a file; one that is not there is no error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcat-rm-'));
    const f = join(dir, 'f');
    writeFileSync(f, 'x');
    removeFile(f);
    expect(existsSync(f)).toBe(false);
    expect(() => removeFile(f)).not.toThrow();
  });

  it('removes a link, never what it leads to', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcat-rm-'));
    const target = join(dir, 'target');
    writeFileSync(target, 'kept');
    symlinkSync(target, join(dir, 'link'));
    removeFile(join(dir, 'link'));
    expect(() => lstatSync(join(dir, 'link'))).toThrow();
    expect(readFileSync(target, 'utf8')).toBe('kept');
  });

  it('refuses a folder (as fs.rmSync without recursive did) and leaves it there', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcat-rm-'));
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub', 'x'), 'x');
    expect(() => removeFile(join(dir, 'sub'))).toThrow();
    expect(readFileSync(join(dir, 'sub', 'x'), 'utf8')).toBe('x');
  });
});

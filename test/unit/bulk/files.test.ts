// removeFile: what a bulk run removes its lock claims, temporary files and finished journals with.
import { mkdtempSync, mkdirSync, readFileSync, symlinkSync, writeFileSync, existsSync, lstatSync } from 'node:fs';
import { readOnlyFolder } from '../../helpers/temp';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureJournalFolder, removeFile } from '../../../src/bulk/files';
import { InputError } from '../../../src/client/errors';

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

// A folder where a journal's folder cannot be made (readOnlyFolder: test/helpers/temp.ts). Node's
// recursive mkdir says ENOENT ('no such file or folder') on a read-only file system, which the
// message then gave as the reason.

describe('ensureJournalFolder where nothing can be made', () => {
  it('names the real reason (read-only, permission denied), not ENOENT', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcat-jro-'));
    const ro = join(dir, 'ro');
    const undo = readOnlyFolder(ro);
    if (!undo) return; // neither a user nor a mount here: nothing to test it with
    try {
      const journal = join(ro, 'a', 'b', 'x.journal');
      let err: InputError | undefined;
      try {
        ensureJournalFolder(journal, { HOME: dir });
      } catch (e) {
        err = e as InputError;
      }
      expect(err).toBeInstanceOf(InputError);
      expect(err!.message).toMatch(/^cannot make the folder .*\/ro\/a\/b for the journal .*: (the file system is read-only \(EROFS\)|permission denied \(EACCES\))$/);
      expect(err!.hint).toBe('give --journal a path in a folder you can write');
    } finally {
      undo();
    }
  });
});

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultJournalPath, Journal, readJournal } from '../../../src/bulk/journal';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcat-journal-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('journal', () => {
  it('writes a header and records, and reads back the state', () => {
    const file = path.join(dir, 'j');
    const { journal, state } = Journal.open(file, { inputHash: 'h', input: 'in.ndjson', total: 3, resume: false, runId: 'r1' });
    expect(state.done.size).toBe(0);
    journal.append({ type: 'started', key: '1:a', line: 1, op: 'create', marker: 'r1:1:a', at: 't' });
    journal.append({ type: 'created', key: '1:a', playlistId: 'p', at: 't' });
    journal.append({ type: 'done', key: '1:a', line: 1, op: 'create', at: 't', playlistId: 'p', created: true });
    journal.append({ type: 'failed', key: '2:b', line: 2, op: 'details', at: 't', error: 'ApiError', message: 'm', code: 2001 });
    journal.close();
    const c = readJournal(file);
    expect(c.header).toMatchObject({ runId: 'r1', inputHash: 'h', input: 'in.ndjson', total: 3, version: 1 });
    expect(c.tornTail).toBe(false);
    const again = Journal.open(file, { inputHash: 'h', total: 3, resume: true });
    expect(again.resumed).toBe(true);
    expect(again.state.runId).toBe('r1');
    expect([...again.state.done.keys()]).toEqual(['1:a']);
    expect([...again.state.failed.keys()]).toEqual(['2:b']);
    expect(again.state.markers.get('1:a')).toBe('r1:1:a');
    expect(again.state.created.get('1:a')).toBe('p');
    again.journal.close();
  });

  it('drops a torn last line and keeps appending on a fresh line', () => {
    const file = path.join(dir, 'j');
    const { journal } = Journal.open(file, { inputHash: 'h', total: 1, resume: false });
    journal.append({ type: 'done', key: '1:a', line: 1, op: 'details', at: 't' });
    journal.close();
    fs.appendFileSync(file, '{"type":"done","key":"2:');
    const o = Journal.open(file, { inputHash: 'h', total: 1, resume: true });
    expect(o.notes.join()).toMatch(/incomplete last record/);
    o.journal.append({ type: 'done', key: '2:b', line: 2, op: 'details', at: 't' });
    o.journal.close();
    const c = readJournal(file);
    expect(c.tornTail).toBe(false);
    expect(c.corruptLines).toEqual([]);
    expect(c.records.filter((r) => r.type === 'done').map((r) => (r as { key: string }).key)).toEqual(['1:a', '2:b']);
  });

  it('refuses to overwrite without resume, and to resume other edits', () => {
    const file = path.join(dir, 'j');
    Journal.open(file, { inputHash: 'h', total: 1, resume: false }).journal.close();
    expect(() => Journal.open(file, { inputHash: 'h', total: 1, resume: false })).toThrow(/already exists/);
    expect(() => Journal.open(file, { inputHash: 'other', total: 1, resume: true })).toThrow(/different edits/);
  });

  it('starts afresh when resuming without a journal, or with one killed before its header', () => {
    const file = path.join(dir, 'j');
    const a = Journal.open(file, { inputHash: 'h', total: 1, resume: true });
    expect(a.resumed).toBe(false);
    expect(a.notes.join()).toMatch(/starting a new run/);
    a.journal.close();
    fs.writeFileSync(file, '{"type":"head');
    const b = Journal.open(file, { inputHash: 'h', total: 1, resume: true });
    expect(b.resumed).toBe(false);
    b.journal.close();
  });

  it('puts the default journal beside the input, or in the cwd by hash for stdin', () => {
    expect(defaultJournalPath('/x/backup.ndjson', 'abc')).toBe('/x/backup.ndjson.journal');
    expect(defaultJournalPath('-', '0123456789abcdef', '/w')).toBe('/w/mcat-apply-0123456789ab.journal');
  });
});

import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { canonicalJson, hashEdits, parseEdits } from '../../../src/bulk/edits';

const P1 = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const P2 = 'bbbbbbbbbbbbbbbbbbbbbbbb';
const G1 = 'cccccccccccccccccccccccc';

const nd = (...lines: unknown[]) => lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n');

describe('parseEdits: NDJSON', () => {
  it('reads every op, normalises case and track ids, ignores blank lines, CRLF and BOM', () => {
    const text =
      '\uFEFF' +
      [
        JSON.stringify({ op: 'replace', playlistId: P1, name: 'A', status: 'Published', visibility: 'PUBLIC', tracks: [{ trackId: 12 }, { trackId: '007', trackTitle: 'x' }] }),
        '',
        '   ',
        JSON.stringify({ op: 'details', playlistId: P2, description: 'd' }),
        JSON.stringify({ op: 'create', name: 'New', annotations: { k: 'v' } }),
        JSON.stringify({ op: 'group-add', groupId: G1, playlistIds: [P1, P2] }),
        JSON.stringify({ op: 'group-replace', groupId: G1, name: 'G' }),
      ].join('\r\n') +
      '\r\n';
    const r = parseEdits(text, { fileName: 'in.ndjson' });
    expect(r.errors).toEqual([]);
    expect(r.format).toBe('ndjson');
    expect(r.edits.map((e) => e.line)).toEqual([1, 4, 5, 6, 7]);
    expect(r.edits[0].edit).toEqual({
      op: 'replace',
      playlistId: P1,
      name: 'A',
      status: 'published',
      visibility: 'public',
      tracks: [{ trackId: '12' }, { trackId: '7', trackTitle: 'x' }],
    });
    expect(new Set(r.edits.map((e) => e.key)).size).toBe(5);
    expect(r.edits[0].key).toMatch(/^1:[0-9a-f]{12}$/);
  });

  it('reports every bad line with file and line number and returns no edits', () => {
    const text = nd(
      { op: 'replace', playlistId: P1, tracks: [] },
      { op: 'details', playlistId: P1, visibility: 'friends' },
      { op: 'replace', playlistId: 'XYZ', tracks: [{ trackId: -1 }] },
      '{"op":"details","playlistId":"' + P1 + '","name":"a","name":"b"}',
      '{"op":"create","name":"trunc',
      { op: 'create' },
      { op: 'details', playlistId: P1 },
      { op: 'details', playlistId: P1, tracks: [] , name: 'x'},
      { op: 'group-add', groupId: G1, playlistIds: [] },
      { op: 'group-replace', groupId: G1 },
      { op: 'replace', playlistId: P1 },
      { op: 'zap' },
      { op: 'create', name: 'x', colour: 'red' },
      { op: 'create', name: 'x', annotations: { a: 1 } },
      '[1,2]',
      { op: 'create', name: 5 },
    );
    const r = parseEdits(text, { fileName: 'backup.ndjson' });
    expect(r.edits).toEqual([]);
    const lines = r.errors.map((e) => e.line);
    expect(new Set(lines)).toEqual(new Set([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]));
    expect(r.errors.find((e) => e.line === 2)!.message).toBe('backup.ndjson:2: "visibility" must be private or public, got "friends"');
    expect(r.errors.filter((e) => e.line === 3)).toHaveLength(2);
    expect(r.errors.find((e) => e.line === 4)!.reason).toBe('duplicate key "name"');
    expect(r.errors.find((e) => e.line === 5)!.reason).toMatch(/not valid JSON: unterminated string/);
    expect(r.errors.find((e) => e.line === 13)!.reason).toBe('unknown key "colour"');
    expect(r.errors.find((e) => e.line === 8)!.reason).toMatch(/"tracks" is not allowed with op "details"/);
  });

  it('finds invalid UTF-8 per line when given bytes', () => {
    const good = Buffer.from(JSON.stringify({ op: 'create', name: 'é' }) + '\n');
    const bad = Buffer.concat([Buffer.from('{"op":"create","name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')]);
    const r = parseEdits(Buffer.concat([good, bad, good]), { fileName: 'x.ndjson' });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0].message).toBe('x.ndjson:2: not valid UTF-8 text (binary data or another encoding)');
    const ok = parseEdits(Buffer.concat([good, good]), { fileName: 'x.ndjson' });
    expect(ok.edits[0].edit).toMatchObject({ name: 'é' });
  });

  it('refuses binary garbage and unpaired surrogates', () => {
    const r = parseEdits('\x00\x01\x02garbage\n{"op":"create","name":"\\ud800"}', { fileName: 'g.ndjson' });
    expect(r.errors.map((e) => e.line)).toEqual([1, 2]);
  });

  it('warns (does not fail) on a description over 500 code points', () => {
    const r = parseEdits(nd({ op: 'details', playlistId: P1, description: '😀'.repeat(501) }), { fileName: 'f.ndjson' });
    expect(r.errors).toEqual([]);
    expect(r.warnings[0].reason).toMatch(/501 characters/);
  });

  it('keeps a key named __proto__ as plain data', () => {
    const r = parseEdits('{"op":"create","name":"n","annotations":{"__proto__":"x"}}', { fileName: 'f.ndjson' });
    expect(r.errors).toEqual([]);
    expect(Object.keys((r.edits[0].edit as { annotations: object }).annotations)).toEqual(['__proto__']);
  });
});

describe('parseEdits: JSON array', () => {
  it('reports the line each bad element starts on', () => {
    const text = `[
  {"op": "create", "name": "ok"},
  {
    "op": "details",
    "playlistId": "${P1}",
    "status": "live"
  },
  {"op": "create", "name": "a"}, {"op":"create"}
]`;
    const r = parseEdits(text, { fileName: 'e.json' });
    expect(r.errors.map((e) => [e.line, e.reason])).toEqual([
      [3, 'element 1: "status" must be draft or published, got "live"'],
      [8, 'element 3: "name" is required for op "create"'],
    ]);
  });

  it('refuses a truncated array', () => {
    const r = parseEdits('[\n{"op":"create","name":"a"},\n{"op":"create",', { fileName: 'e.json' });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0].reason).toMatch(/truncated/);
  });

  it('reads a single object and a stream of objects in a .json file', () => {
    expect(parseEdits('{\n "op": "create",\n "name": "a"\n}\n', { fileName: 'one.json' }).edits).toHaveLength(1);
    const r = parseEdits('{"op":"create","name":"a"}\n\n{"op":"create",\n"name":"b"}', { fileName: 'two.json' });
    expect(r.edits.map((e) => e.line)).toEqual([1, 3]);
  });

  it('sniffs the format without an extension', () => {
    expect(parseEdits('[{"op":"create","name":"a"}]', { fileName: '-' }).format).toBe('json');
    expect(parseEdits('{"op":"create","name":"a"}', { fileName: '-' }).format).toBe('ndjson');
    expect(parseEdits(`playlistId,trackId\n${P1},1`, { fileName: '-' }).format).toBe('csv');
  });
});

describe('parseEdits: CSV', () => {
  it('groups rows into one replace per playlist in order of first appearance', () => {
    const text = `playlistId,trackId,trackTitle,releaseId\r\n${P2},5,"Hello, ""world""",10\r\n${P1},6,,\r\n${P2},7,"two\nlines",\r\n`;
    const r = parseEdits(text, { fileName: 't.csv' });
    expect(r.errors).toEqual([]);
    expect(r.edits.map((e) => [e.line, e.edit])).toEqual([
      [2, { op: 'replace', playlistId: P2, tracks: [{ trackId: '5', trackTitle: 'Hello, "world"', releaseId: '10' }, { trackId: '7', trackTitle: 'two\nlines' }] }],
      [3, { op: 'replace', playlistId: P1, tracks: [{ trackId: '6' }] }],
    ]);
  });

  it('reports bad rows with the line they start on, and a missing header', () => {
    const text = `playlistId,trackId\n${P1},1\n"multi\nline",2\nnothex,3\n${P1},x\n${P1},1,extra\n${P1},"unterminated`;
    const r = parseEdits(text, { fileName: 't.csv' });
    expect(r.errors.map((e) => e.line)).toEqual([3, 5, 6, 7, 8]);
    expect(parseEdits(`${P1},1\n`, { fileName: 't.csv' }).errors[0].reason).toMatch(/unknown CSV column/);
    expect(parseEdits(`playlistId,title\n`, { fileName: 't.csv' }).errors.length).toBeGreaterThan(0);
  });
});

describe('canonical form', () => {
  it('orders keys and gives identical input the same hash', () => {
    const a = parseEdits(JSON.stringify({ tracks: [{ trackTitle: 't', trackId: 1 }], playlistId: P1, op: 'replace' }), { fileName: 'a.ndjson' });
    const b = parseEdits(`[{"op":"replace","playlistId":"${P1}","tracks":[{"trackId":"1","trackTitle":"t"}]}]`, { fileName: 'b.json' });
    expect(canonicalJson(a.edits[0].edit)).toBe(`{"op":"replace","playlistId":"${P1}","tracks":[{"trackId":"1","trackTitle":"t"}]}`);
    expect(a.inputHash).toBe(b.inputHash);
    expect(a.edits[0].key).toBe(b.edits[0].key);
  });
});

describe('keys and input hash', () => {
  // every field an edit read without zod can carry, each given out of canonical order
  const lines = [
    { tracks: [{ releaseVersion: 'v', trackId: '007', releaseId: 12, trackTitle: 't', artistAppearsAs: 'a' }], visibility: 'PUBLIC', status: 'Draft', name: 'n', ifMissing: 'create', playlistId: P1, op: 'replace' },
    { annotations: { z: '1', a: '2' }, imageUrl: 'https://x/y.jpg', description: 'd', name: 'n', playlistId: P1, op: 'details' },
    { tracks: [], name: 'made', op: 'create', annotations: { k: 'v' } },
    { op: 'group-add', groupId: P1, playlistIds: [P1] },
  ];
  const text = lines.map((l) => JSON.stringify(l)).join('\n') + '\n';

  it('hash each edit as its canonical JSON, whether it was read with zod or without', () => {
    const r = parseEdits(text, { fileName: 'k.ndjson' });
    expect(r.errors).toEqual([]);
    const hash = createHash('sha256');
    r.edits.forEach((e, i) => {
      const c = canonicalJson(e.edit);
      // what the journals of earlier versions hold: a resumed run must find the same keys
      expect(e.key).toBe(`${i + 1}:${createHash('sha256').update(c).digest('hex').slice(0, 12)}`);
      expect(JSON.stringify(e.edit)).toBe(c);
      hash.update(c).update('\n');
    });
    expect(r.inputHash).toBe(hash.digest('hex'));
    expect(hashEdits(r.edits)).toBe(r.inputHash);
  });

  it('colons and quotes inside strings are not keys; a repeated key anywhere is one', () => {
    const tricky = `{"op":"details","playlistId":"${P1}","name":"a: \\"b\\": c","annotations":{"k:\\"x\\":":"v\\\\\\":y","z":":"}}`;
    const r = parseEdits(tricky + '\n', { fileName: 't.ndjson' });
    expect(r.errors).toEqual([]);
    expect(r.edits[0].edit).toEqual({ op: 'details', playlistId: P1, name: 'a: "b": c', annotations: { 'k:"x":': 'v\\":y', z: ':' } });
    const inTrack = `{"op":"replace","playlistId":"${P1}","tracks":[{"trackId":"1","trackTitle":"a:b","trackTitle":"c"}]}`;
    const inAnnotations = `{"op":"details","playlistId":"${P1}","annotations":{"k":"1","k":"2"}}`;
    const trackId = `{"op":"replace","playlistId":"${P1}","tracks":[{"trackId":"1"},{"trackId":"2","trackId":"3"}]}`;
    const group = `{"op":"group-add","groupId":"${P1}","groupId":"${P1}","playlistIds":["${P1}"]}`;
    const deep = `{"op":"details","playlistId":"${P1}","annotations":${'['.repeat(300)}${']'.repeat(300)}}`;
    const bad = parseEdits([inTrack, inAnnotations, trackId, group, deep].join('\n') + '\n', { fileName: 'd.ndjson' });
    expect(bad.edits).toEqual([]);
    expect(bad.errors.map((e) => [e.line, e.reason.replace(/ at column \d+$/, '')])).toEqual([
      [1, 'duplicate key "trackTitle"'],
      [2, 'duplicate key "k"'],
      [3, 'duplicate key "trackId"'],
      [4, 'duplicate key "groupId"'],
      [5, 'not valid JSON: nesting too deep'],
    ]);
  });

  it('a duplicate key is still refused on the fast path', () => {
    const r = parseEdits(`{"op":"details","playlistId":"${P1}","name":"a","name":"b"}\n`, { fileName: 'd.ndjson' });
    expect(r.edits).toEqual([]);
    expect(r.errors.map((e) => e.reason)).toEqual(['duplicate key "name"']);
  });
});

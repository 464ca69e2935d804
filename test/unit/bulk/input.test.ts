// The playlist-input module's messages, pinned: a bad line in each format gives exactly
// `file:line: reason`, hostile input included (a 10 MB line, NUL bytes, BOM and CRLF, numbers
// for ids, prototype keys).
import { describe, expect, it, vi } from 'vitest';
import { parseEdits } from '../../../src/bulk/edits';
import { codePoints, describe as kindOf, EDIT_SCHEMAS, isPlaylistId, sniffFormat, validateBodyFields, validateEdit, validateEditWithZod, validateTrack } from '../../../src/bulk/input';

const P1 = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const G1 = 'cccccccccccccccccccccccc';
const messages = (text: string, fileName = 'e.ndjson') => parseEdits(text, { fileName }).errors.map((e) => e.message);

describe('edit lines: one message per problem, in the order a reader checks them', () => {
  it('NDJSON: unknown keys first, then every field of the op in order', () => {
    const line = JSON.stringify({ op: 'replace', playlistId: P1, name: 7, status: 5, visibility: 'x', description: [], imageUrl: null, annotations: [], tracks: 't', colour: 1, groupId: G1 });
    expect(messages(line)).toEqual([
      'e.ndjson:1: unknown key "colour"',
      'e.ndjson:1: "groupId" is not allowed with op "replace" (only with "group-add", "group-replace")',
      'e.ndjson:1: "name" must be a string, got a number',
      'e.ndjson:1: "status" must be draft or published, got 5',
      'e.ndjson:1: "visibility" must be private or public, got "x"',
      'e.ndjson:1: "description" must be a string, got an array',
      'e.ndjson:1: "imageUrl" must be a string, got null',
      'e.ndjson:1: "annotations" must be an object of string values, got an array',
      'e.ndjson:1: "tracks" must be an array, got a string',
    ]);
  });

  it('NDJSON: each track by its index, its unknown keys before its fields', () => {
    const line = `{"op":"replace","playlistId":"${P1}","ifMissing":"yes","tracks":[1,"2",null,[],{"trackId":0},{"x":1},{"trackId":"1","releaseId":"0","trackTitle":5,"zz":1}]}`;
    expect(messages(line)).toEqual([
      'e.ndjson:1: "ifMissing" must be "create", got "yes"',
      'e.ndjson:1: "tracks[0]" must be an object with "trackId", got a number',
      'e.ndjson:1: "tracks[1]" must be an object with "trackId", got a string',
      'e.ndjson:1: "tracks[2]" must be an object with "trackId", got null',
      'e.ndjson:1: "tracks[3]" must be an object with "trackId", got an array',
      'e.ndjson:1: "tracks[4].trackId" must be a positive integer, got 0',
      'e.ndjson:1: "tracks[5]": unknown key "x"',
      'e.ndjson:1: "tracks[5].trackId" is required',
      'e.ndjson:1: "tracks[6]": unknown key "zz"',
      'e.ndjson:1: "tracks[6].trackTitle" must be a string, got a number',
      'e.ndjson:1: "tracks[6].releaseId" must be a positive integer, got "0"',
    ]);
  });

  it('NDJSON: catalogue ids are 32-bit (the service refuses a larger one with 1002): past 2147483647 refused as such, before sending', () => {
    const line = `{"op":"replace","playlistId":"${P1}","tracks":[{"trackId":2147483647,"releaseId":"2147483647"},{"trackId":"2147483648"},{"trackId":99999999999999999999,"releaseId":3000000000},{"trackId":"0002147483647"}]}`;
    expect(messages(line)).toEqual([
      'e.ndjson:1: "tracks[1].trackId" must be at most 2147483647 (a catalogue id), got "2147483648"',
      'e.ndjson:1: "tracks[2].trackId" must be at most 2147483647 (a catalogue id), got 100000000000000000000',
      'e.ndjson:1: "tracks[2].releaseId" must be at most 2147483647 (a catalogue id), got 3000000000',
    ]);
    expect(messages(`playlistId,trackId\n${P1},2147483648\n`, 'e.csv')).toEqual(['e.csv:2: "trackId" must be at most 2147483647 (a catalogue id), got "2147483648"']);
  });

  it('NDJSON: ops, required fields and the group ops', () => {
    expect(messages('{"op":5}')).toEqual(['e.ndjson:1: "op" must be one of replace, details, create, group-add, group-replace, got 5']);
    expect(messages('{"name":"x"}')).toEqual(['e.ndjson:1: "op" is required (one of replace, details, create, group-add, group-replace)']);
    expect(messages('"str"')).toEqual(['e.ndjson:1: a line must hold one JSON object (an edit), got a string']);
    expect(messages('{"op":"create","name":""}')).toEqual(['e.ndjson:1: "name" must not be empty']);
    // the service refuses an empty name on details and replace too (1002): refused before sending
    expect(messages(`{"op":"details","playlistId":"${P1}","name":""}`)).toEqual(['e.ndjson:1: "name" must not be empty']);
    expect(messages(`{"op":"replace","playlistId":"${P1}","name":" ","tracks":[]}`)).toEqual(['e.ndjson:1: "name" must not be empty']);
    const bodyErrors: string[] = [];
    expect(validateBodyFields({ name: '' }, bodyErrors)).toBeUndefined();
    expect(bodyErrors).toEqual(['"name" must not be empty']);
    expect(messages(`{"op":"details","playlistId":"${P1}"}`)).toEqual([
      'e.ndjson:1: op "details" needs at least one of name, status, visibility, description, imageUrl, annotations',
    ]);
    expect(messages('{"op":"group-add"}')).toEqual(['e.ndjson:1: "groupId" is required for op "group-add"', 'e.ndjson:1: "playlistIds" is required for op "group-add"']);
    expect(messages('{"op":"group-add","groupId":"x","playlistIds":"p"}')).toEqual([
      'e.ndjson:1: "groupId" must be 24 lower-case hexadecimal characters, got "x"',
      'e.ndjson:1: "playlistIds" must be an array of playlist ids, got a string',
    ]);
    expect(messages(`{"op":"group-add","groupId":"${G1}","playlistIds":[]}`)).toEqual(['e.ndjson:1: "playlistIds" must not be empty for op "group-add"']);
    expect(messages(`{"op":"group-add","groupId":"${G1}","playlistIds":["${P1}",5,"X"],"name":"n"}`)).toEqual([
      'e.ndjson:1: "name" is not allowed with op "group-add" (only with "replace", "details", "create", "group-replace")',
      'e.ndjson:1: "playlistIds[1]" must be 24 lower-case hexadecimal characters, got 5',
      'e.ndjson:1: "playlistIds[2]" must be 24 lower-case hexadecimal characters, got "X"',
    ]);
    expect(messages(`{"op":"group-replace","groupId":"${G1}","name":"  ","tracks":[]}`)).toEqual([
      'e.ndjson:1: "tracks" is not allowed with op "group-replace" (only with "replace", "create")',
      'e.ndjson:1: "name" must not be empty',
    ]);
  });

  it('NDJSON: an image address is an absolute http or https URL (the spec types it as one), or empty to clear the image', () => {
    const line = (v: unknown) => JSON.stringify({ op: 'details', playlistId: P1, imageUrl: v });
    for (const ok of ['https://img.example/a_$size$.jpg', 'http://img.example', 'HTTPS://IMG.EXAMPLE/x?y=1#z', '']) expect(messages(line(ok)), ok).toEqual([]);
    expect(messages(line('img.example/a.jpg'))).toEqual(['e.ndjson:1: "imageUrl" must be an http or https address (or empty, to clear the image), got "img.example/a.jpg"']);
    for (const bad of ['u', 'ftp://img.example/a.jpg', 'https://', 'https:///a.jpg', ' https://img.example/a.jpg', 'https://img.example/a b.jpg', 'javascript:alert(1)', 'https://img.example/\n']) {
      expect(messages(line(bad)), bad).toEqual([`e.ndjson:1: "imageUrl" must be an http or https address (or empty, to clear the image), got ${JSON.stringify(bad)}`]);
    }
    // a long one is cut in the message
    expect(messages(line('x'.repeat(200)))[0]).toBe(`e.ndjson:1: "imageUrl" must be an http or https address (or empty, to clear the image), got "${'x'.repeat(60)}…"`);
  });

  it('JSON: an element by its index, on the line it starts', () => {
    expect(messages('[1,\n null, {"op":"create","name":"ok"}]', 'e.json')).toEqual([
      'e.json:1: element 0: an edit must be a JSON object, got a number',
      'e.json:2: element 1: an edit must be a JSON object, got null',
    ]);
    expect(messages('{"op":"create","name":"a"}\n[1]', 'e.json')).toEqual(['e.json:2: not valid JSON: expected a JSON array of edits or an edit object at column 1']);
  });

  it('CSV: a row by its line, the field by its column name', () => {
    const text = `playlistId,trackId,releaseId,trackTitle\n${P1},abc,0,t\n123,1,,\n${P1},1,,"a\u0001b"\n`;
    expect(messages(text, 'e.csv')).toEqual([
      'e.csv:2: "trackId" must be a positive integer, got "abc"',
      'e.csv:2: "releaseId" must be a positive integer, got "0"',
      'e.csv:3: "playlistId" must be 24 lower-case hexadecimal characters, got "123"',
      'e.csv:4: a field holds control characters (binary data?)',
    ]);
    expect(messages('playlistId,trackId,playlistId,bogus\n', 'e.csv')).toEqual([
      'e.csv:1: duplicate CSV column "playlistId"',
      'e.csv:1: unknown CSV column "bogus" (columns: playlistId, trackId, trackTitle, trackVersion, artistAppearsAs, releaseId, releaseTitle, releaseArtistAppearsAs, releaseVersion)',
    ]);
  });
});

describe('hostile input', () => {
  it('a JSON number where an id belongs is refused, not coerced', () => {
    expect(messages('{"op":"replace","playlistId":123,"tracks":[]}')).toEqual(['e.ndjson:1: "playlistId" must be 24 lower-case hexadecimal characters, got 123']);
    expect(messages(`{"op":"group-add","groupId":1e23,"playlistIds":["${P1}"]}`)).toEqual(['e.ndjson:1: "groupId" must be 24 lower-case hexadecimal characters, got 1e+23']);
    expect(isPlaylistId(123)).toBe(false);
  });

  it('a value is shown as the file has it and named in English: "an object", not "a object"; 1e400 is Infinity, not null', () => {
    expect(messages(`{"op":"replace","playlistId":"${P1}","tracks":{"trackId":1}}`)).toEqual(['e.ndjson:1: "tracks" must be an array, got an object']);
    expect(messages(`{"op":"group-add","groupId":"${G1}","playlistIds":{"a":1}}`)).toEqual(['e.ndjson:1: "playlistIds" must be an array of playlist ids, got an object']);
    expect(messages(`{"op":"details","playlistId":"${P1}","name":{},"annotations":{"k":{}}}`)).toEqual([
      'e.ndjson:1: "name" must be a string, got an object',
      'e.ndjson:1: "annotations.k" must be a string, got an object',
    ]);
    // JSON numbers are read as JavaScript numbers: one too large to hold is Infinity (a positive integer past any id), not JSON.stringify's null
    const line = `{"op":"replace","playlistId":"${P1}","status":1e400,"tracks":[{"trackId":1e400},{"trackId":-1e400},{"trackId":"1","releaseId":1e400}]}`;
    expect(messages(line)).toEqual([
      'e.ndjson:1: "status" must be draft or published, got Infinity',
      'e.ndjson:1: "tracks[0].trackId" must be at most 2147483647 (a catalogue id), got Infinity',
      'e.ndjson:1: "tracks[1].trackId" must be a positive integer, got -Infinity',
      'e.ndjson:1: "tracks[2].releaseId" must be at most 2147483647 (a catalogue id), got Infinity',
    ]);
    expect(messages(`{"op":"group-add","groupId":-1e999,"playlistIds":["${P1}"]}`)).toEqual(['e.ndjson:1: "groupId" must be 24 lower-case hexadecimal characters, got -Infinity']);
    expect([undefined, {}, 1, true, 'x', null, []].map(kindOf)).toEqual(['nothing', 'an object', 'a number', 'a boolean', 'a string', 'null', 'an array']);
  });

  it('prototype keys of an edit line are unknown keys; in annotations they are plain data', () => {
    expect(messages('{"op":"create","name":"x","__proto__":{"polluted":1},"constructor":"y"}')).toEqual([
      'e.ndjson:1: unknown key "__proto__"',
      'e.ndjson:1: unknown key "constructor"',
    ]);
    expect(messages(`{"op":"details","playlistId":"${P1}","annotations":{"__proto__":5,"constructor":"c"}}`)).toEqual([
      'e.ndjson:1: "annotations.__proto__" must be a string, got a number',
    ]);
    const r = parseEdits(`{"op":"details","playlistId":"${P1}","annotations":{"__proto__":"p","constructor":"c","toString":"t"}}`, { fileName: 'e.ndjson' });
    expect(r.errors).toEqual([]);
    const a = (r.edits[0].edit as { annotations: Record<string, string> }).annotations;
    expect(Object.keys(a)).toEqual(['__proto__', 'constructor', 'toString']);
    expect(Object.getPrototypeOf(a)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('NUL bytes: inside a string, after an object, as the whole line', () => {
    expect(messages('{"op":"create","name":"a\u0000b"}')).toEqual(['e.ndjson:1: not valid JSON: control character inside a string (must be escaped) at column 25']);
    expect(messages('{"op":"create","name":"ok"}\u0000\n')).toEqual(['e.ndjson:1: not valid JSON: unexpected text after the JSON object (one edit per line) at column 28']);
    expect(messages('\u0000\u0001')).toEqual(["e.ndjson:1: not valid JSON: unexpected '\\u0000', expected a JSON value at column 1"]);
  });

  it('a BOM and CRLF line ends change no line number', () => {
    expect(messages('\uFEFF{"op":"create","name":"ok"}\r\n{"op":"create"}\r\n')).toEqual(['e.ndjson:2: "name" is required for op "create"']);
    expect(messages(`\uFEFFplaylistId,trackId\r\n${P1},1\r\n${P1},x\r\n`, 'e.csv')).toEqual(['e.csv:3: "trackId" must be a positive integer, got "x"']);
  });

  it('a 10 MB line: read whole when valid, one message when not', () => {
    const big = 'x'.repeat(10 * 1024 * 1024);
    const ok = parseEdits(`{"op":"details","playlistId":"${P1}","description":"${big}"}\n{"op":"create"}`, { fileName: 'big.ndjson' });
    expect(ok.errors.map((e) => e.message)).toEqual(['big.ndjson:2: "name" is required for op "create"']);
    expect(ok.warnings.map((w) => w.message)).toEqual([`big.ndjson:1: "description" has ${big.length} characters; the service keeps the first 500`]);
    const bad = messages(`{"op":"create","name":"ok"}\n{"op":"create","name":"${big}`, 'big.ndjson');
    expect(bad).toEqual(['big.ndjson:2: not valid JSON: unterminated string (truncated?) at column 23']);
  });
});

describe('the shared pieces', () => {
  it('one edit validator and one track validator, whoever reads the file', () => {
    const errs: string[] = [];
    expect(validateEdit({ op: 'create', name: 'n', tracks: [{ trackId: '007', releaseId: 5 }] }, errs)).toEqual({ op: 'create', name: 'n', tracks: [{ trackId: '7', releaseId: 5 }] });
    expect(errs).toEqual([]);
    const t: string[] = [];
    expect(validateTrack({ trackId: 'x', releaseId: -1, artistAppearsAs: 1, q: 2 }, 'tracks[0]', t)).toBeUndefined();
    expect(t).toEqual([
      '"tracks[0]": unknown key "q"',
      '"tracks[0].trackId" must be a positive integer, got "x"',
      '"tracks[0].artistAppearsAs" must be a string, got a number',
      '"tracks[0].releaseId" must be a positive integer, got -1',
    ]);
  });

  it('a playlist body: its fields checked, edit-only keys named as such', () => {
    const errs: string[] = [];
    expect(validateBodyFields({ name: 5, status: 'x', colour: 1, groupId: G1, op: 'details', tracks: 'anything' }, errs)).toBeUndefined();
    expect(errs).toEqual(['unknown key "colour"', '"groupId" is not allowed', '"op" is not allowed', '"name" must be a string, got a number', '"status" must be draft or published, got "x"']);
    const body = { status: 'DRAFT', visibility: 'Public', playlistId: P1, ifMissing: 'create', annotations: {} as Record<string, string> };
    Object.defineProperty(body.annotations, '__proto__', { value: 'p', enumerable: true });
    const fields = validateBodyFields(body, []);
    expect(fields).toEqual({ status: 'draft', visibility: 'public', annotations: body.annotations });
    expect(Object.keys(fields!.annotations!)).toEqual(['__proto__']);
  });

  it('code points, and the format of a file with no extension', () => {
    expect(codePoints('😀é')).toBe(2);
    expect(sniffFormat('  [1]')).toBe('json');
    expect(sniffFormat('{"a":1}\n{"a":2}')).toBe('ndjson');
    expect(sniffFormat('{"a":\n1}', { wholeDocument: true })).toBe('json');
    expect(sniffFormat('{"a":1}\n{"a":2}', { wholeDocument: true })).toBe('ndjson');
    expect(sniffFormat('trackId\n1')).toBe('csv');
    expect(sniffFormat('')).toBe('ndjson');
  });
});

describe('valid playlist edits are read without zod, to the same output', () => {
  const T = (o: Record<string, unknown>) => ({ trackId: '12', ...o });
  const valid: Record<string, unknown>[] = [
    { op: 'replace', playlistId: P1, tracks: [] },
    { op: 'replace', playlistId: P1, ifMissing: 'create', name: 'n', status: 'PUBLISHED', visibility: 'Private', description: 'd', imageUrl: 'https://img.example/u_$size$.jpg', annotations: { a: 'b', 'c d': '' }, tracks: [T({})] },
    { op: 'details', playlistId: P1, imageUrl: '' },
    { tracks: [{ releaseVersion: 'v', trackId: 7 }, { trackId: '0070', releaseId: 5 }, T({ releaseId: '09', trackTitle: 't', trackVersion: 'v', artistAppearsAs: 'a', releaseTitle: 'r', releaseArtistAppearsAs: 'x' })], name: 'n', op: 'replace', playlistId: P1 },
    { op: 'details', playlistId: P1, visibility: 'public' },
    { op: 'details', playlistId: P1, annotations: {} },
    { op: 'create', name: ' x ', tracks: [T({})] },
    { op: 'create', name: 'x', status: 'Draft' },
    { op: 'replace', playlistId: P1, description: 'é'.repeat(500), tracks: [] },
  ];
  const invalid: unknown[] = [
    null,
    [],
    'x',
    {},
    { op: 'replace', playlistId: P1 },
    { op: 'replace', playlistId: P1.toUpperCase(), tracks: [] },
    { op: 'replace', playlistId: P1, ifMissing: 'yes', tracks: [] },
    { op: 'replace', playlistId: P1, tracks: [], colour: 1 },
    { op: 'replace', playlistId: P1, tracks: [], groupId: G1 },
    { op: 'replace', playlistId: P1, tracks: [], name: undefined },
    { op: 'replace', playlistId: P1, tracks: [{ trackId: 0 }] },
    { op: 'replace', playlistId: P1, tracks: [{ trackId: '1', x: 1 }] },
    { op: 'replace', playlistId: P1, tracks: [{ trackId: 1.5 }] },
    { op: 'replace', playlistId: P1, tracks: [{ trackId: '1', releaseId: '0' }] },
    { op: 'replace', playlistId: P1, tracks: [{ trackId: '1', trackTitle: 5 }] },
    { op: 'replace', playlistId: P1, tracks: [null] },
    { op: 'replace', playlistId: P1, tracks: 'all' },
    { op: 'replace', playlistId: P1, status: 'live', tracks: [] },
    { op: 'replace', playlistId: P1, visibility: 7, tracks: [] },
    { op: 'replace', playlistId: P1, annotations: { a: 1 }, tracks: [] },
    { op: 'replace', playlistId: P1, annotations: [], tracks: [] },
    { op: 'replace', playlistId: P1, description: 'x'.repeat(501), tracks: [] },
    { op: 'details', playlistId: P1 },
    { op: 'details', playlistId: P1, tracks: [] },
    { op: 'create', name: '  ' },
    { op: 'create' },
    { op: 'create', playlistId: P1, name: 'x' },
    { op: 'group-add', groupId: G1, playlistIds: [P1] },
    { op: 'group-replace', groupId: G1, name: 'g' },
    JSON.parse(`{"op":"replace","playlistId":"${P1}","tracks":[],"__proto__":{"x":1}}`),
    JSON.parse(`{"op":"replace","playlistId":"${P1}","tracks":[],"annotations":{"__proto__":"p"}}`),
    JSON.parse(`{"op":"replace","playlistId":"${P1}","tracks":[{"trackId":"1","__proto__":"p"}]}`),
    { op: 'details', playlistId: P1, name: '' },
    { op: 'replace', playlistId: P1, name: ' ', tracks: [] },
    { op: 'details', playlistId: P1, imageUrl: 'u' },
    { op: 'details', playlistId: P1, imageUrl: 'img.example/a.jpg' },
    { op: 'details', playlistId: P1, imageUrl: 'ftp://img.example/a.jpg' },
    { op: 'details', playlistId: P1, imageUrl: ' https://img.example/a.jpg' },
  ];

  it('gives what the schemas give: the value (keys in the same order), the problems and the notes', () => {
    for (const v of [...valid, ...invalid]) {
      const [e1, n1, e2, n2]: string[][] = [[], [], [], []];
      const mine = validateEdit(v, e1, n1);
      const zods = validateEditWithZod(v, e2, n2);
      expect(JSON.stringify(mine), JSON.stringify(v)).toBe(JSON.stringify(zods));
      expect(mine).toEqual(zods);
      expect([e1, n1]).toEqual([e2, n2]);
    }
  });

  it('asks zod only about edits that are not valid playlist edits', () => {
    const spies = (['replace', 'details', 'create', 'group-add'] as const).map((op) => vi.spyOn(EDIT_SCHEMAS[op], 'safeParse'));
    try {
      for (const v of valid) expect(validateEdit(v, [])).toBeDefined();
      expect(spies.map((s) => s.mock.calls.length)).toEqual([0, 0, 0, 0]);
      validateEdit(invalid[6], []);
      validateEdit(invalid[27], []);
      expect(spies.map((s) => s.mock.calls.length)).toEqual([1, 0, 0, 1]);
    } finally {
      for (const s of spies) s.mockRestore();
    }
  });
});

describe('track ids on the fast path', () => {
  const P = 'ad0ed2b4b45b8d81945103f4';
  it('reads every track id as the schemas do: digits with one not 0, leading zeros dropped', () => {
    const ids: unknown[] = ['7', '12', '0010', '007', '0', '00', '', '1a', ' 1', '1 ', '-1', '+1', 1, 7, 0, -3, 1.5, '١٢', null, true];
    for (const trackId of ids) {
      for (const extra of [{}, { trackTitle: 't' }, { other: 1 }]) {
        const v = { op: 'replace', playlistId: P, tracks: [{ trackId, ...extra }] };
        const fast: string[] = [];
        const zod: string[] = [];
        expect(validateEdit(v, fast)).toEqual(validateEditWithZod(v, zod));
        expect(fast).toEqual(zod);
      }
    }
    expect(validateEdit({ op: 'replace', playlistId: P, tracks: [{ trackId: '0010' }, { trackId: '12' }] }, [])).toEqual({
      op: 'replace',
      playlistId: P,
      tracks: [{ trackId: '10' }, { trackId: '12' }],
    });
  });
});

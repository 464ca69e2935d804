// mcat's client reads playlist and group bodies in both shapes: bare ({"playlist": …}, what the
// sandbox sent before issue 14) and enveloped ({"status":"ok","version":"1.2","playlist": …}, what
// the real service and the sandbox send), with track entries as the real samples show them.
import { describe, expect, it } from 'vitest';
import { playlistBody, playlistGroupBody, playlistsBody } from '../../../src/client/schemas/playlist';
import { parseApiXml } from '../../../src/client/xml';
import { renderXml } from '../../../src/sandbox/render-xml';

const track = {
  id: '52cd88c2c902161660aeab80',
  trackId: '5495893',
  trackTitle: 'No You Girls',
  trackVersion: '',
  artistId: 1,
  artistAppearsAs: 'Franz Ferdinand',
  releaseId: 496338,
  releaseTitle: 'Remixes',
  releaseArtistId: 2,
  releaseArtistAppearsAs: 'Franz Ferdinand',
  releaseVersion: '',
  source: '7digital',
  audioUrl: 'http://127.0.0.1:1/media/stream/5495893',
  user: 'id:4874383',
  dateAdded: null,
  image: 'http://img/x_$size$.jpg',
};
const pl = { id: '52b3733cc902160fa8bc9f34', name: 'P', status: 'Draft', visibility: 'Private', tracks: [track], lastUpdated: '2014-01-22T14:52:21.988Z' };
const envelope = { status: 'ok', version: '1.2' };

describe('playlist and group bodies, bare and enveloped', () => {
  it('a playlist', () => {
    for (const body of [{ playlist: pl }, { ...envelope, playlist: pl }]) {
      const r = playlistBody.parse(body);
      expect(r.playlist.id).toBe(pl.id);
      expect(r.playlist.tracks![0]).toMatchObject({ trackId: '5495893', artistId: 1, releaseArtistId: 2, user: 'id:4874383', source: '7digital', dateAdded: null });
    }
  });

  it('a list of playlists and a group', () => {
    const list = { playlists: { page: 1, pageSize: 10, totalItems: 1, playlist: [{ ...pl, tracks: undefined, trackCount: 1 }] } };
    for (const body of [list, { ...envelope, ...list }]) expect(playlistsBody.parse(body).playlists.playlist[0].id).toBe(pl.id);
    const group = { playlistGroup: { id: 'a'.repeat(24), name: 'G', playlistCount: 1, playlists: [{ id: pl.id }] } };
    for (const body of [group, { ...envelope, ...group }]) expect(playlistGroupBody.parse(body).playlistGroup.playlists![0].id).toBe(pl.id);
  });

  it('the sandbox’s XML of a playlist reads back into the JSON shape', () => {
    const { body } = parseApiXml(renderXml({ ...envelope, playlist: pl }));
    const r = playlistBody.parse(body);
    expect(r.playlist.id).toBe(pl.id);
    expect(r.playlist.tracks).toHaveLength(1);
    expect(r.playlist.tracks![0]).toMatchObject({ id: track.id, trackId: '5495893', source: '7digital', user: 'id:4874383', dateAdded: null });
    expect(String(r.playlist.tracks![0].artistId)).toBe('1');
  });
});

describe('a playlist’s annotations in XML', () => {
  const xml = (inner: string) =>
    `<?xml version="1.0"?><response status="ok" version="1.2"><playlist id="52b3733cc902160fa8bc9f34"><name>P</name>${inner}</playlist></response>`;

  it('the real schema’s <annotation key="…">value</annotation> read as {key: value}, keys as plain data', () => {
    const { body } = parseApiXml(xml('<annotations><annotation key="another key">another value</annotation><annotation key="__proto__">p</annotation><annotation key="e"/><annotation key="n">007</annotation></annotations>'));
    const a = (body as any).playlist.annotations;
    expect(Object.entries(a)).toEqual([['another key', 'another value'], ['__proto__', 'p'], ['e', ''], ['n', '007']]);
    expect(Object.getPrototypeOf(a)).toBe(Object.prototype);
  });

  it('none, nil, and the element-per-key form an older sandbox sent', () => {
    expect((parseApiXml(xml('<annotations/>')).body as any).playlist.annotations).toEqual({});
    expect((parseApiXml(xml('<annotations xsi:nil="true"/>')).body as any).playlist.annotations).toBeNull();
    expect((parseApiXml(xml('<annotations><origin>sandbox demo data</origin><k/></annotations>')).body as any).playlist.annotations).toEqual({ origin: 'sandbox demo data', k: '' });
  });
});

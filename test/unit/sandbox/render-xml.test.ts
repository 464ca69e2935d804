// The sandbox's XML form shows the service's own timestamps with an offset (the spec: "UTC, or
// with an offset in the XML form") and every other text as the JSON form has it: a caller's
// playlist name, description, tag or track title that looks like a UTC timestamp is their text.
import { describe, expect, it } from 'vitest';
import { renderXml, renderXmlElement } from '../../../src/sandbox/render-xml';

const Z = '2024-01-01T00:00:00Z';
const OFFSET = '2024-01-01T00:00:00+00:00';

describe('sandbox XML: timestamps', () => {
  it('a caller’s text that looks like a UTC timestamp is kept as sent (name, description, tag, track title, annotation)', () => {
    const xml = renderXml({
      status: 'ok',
      version: '1.2',
      playlist: {
        id: 'ab'.repeat(12),
        name: Z,
        description: '2024-01-01T00:00:00.5Z',
        tags: [{ name: Z, playlistPosition: 1 }],
        annotations: { when: Z },
        tracks: [{ id: 'cd'.repeat(12), trackId: '1', trackTitle: Z, releaseTitle: Z, dateAdded: '2024-05-01T09:00:00.000Z' }],
        lastUpdated: '2024-05-01T10:00:00.000Z',
      },
    });
    expect(xml).toContain(`<name>${Z}</name>`);
    expect(xml).toContain('<description>2024-01-01T00:00:00.5Z</description>');
    expect(xml).toContain(`<tags><tag><name>${Z}</name><playlistPosition>1</playlistPosition></tag></tags>`);
    expect(xml).toContain(`<annotation key="when">${Z}</annotation>`);
    expect(xml).toContain(`<trackTitle>${Z}</trackTitle>`);
    expect(xml).toContain(`<releaseTitle>${Z}</releaseTitle>`);
    expect(xml).not.toContain('+00:00</name>');
    // the service's own timestamps, still with an offset
    expect(xml).toContain('<dateAdded>2024-05-01T09:00:00.000+00:00</dateAdded>');
    expect(xml).toContain('<lastUpdated>2024-05-01T10:00:00.000+00:00</lastUpdated>');
  });

  it('every timestamp field the sandbox emits has an offset, however deep (catalogue, enhanced metadata, locker, groups)', () => {
    const xml = renderXml({
      status: 'ok',
      version: '1.2',
      release: { id: 1, title: Z, download: { releaseDate: Z, packages: [] }, subscriptionStreaming: { releaseDate: Z } },
      track: { id: 2, title: Z, download: { releaseDate: Z, previewDate: Z }, tagsUpdatedAt: Z, mood: Z },
      playlistGroup: { id: 'ef'.repeat(12), name: Z, lastUpdated: Z, playlists: [{ id: 'ab'.repeat(12), name: Z, lastUpdated: Z }] },
    });
    expect(xml.match(/\+00:00/g)).toHaveLength(7);
    for (const k of ['releaseDate', 'previewDate', 'tagsUpdatedAt', 'lastUpdated']) expect(xml).toContain(`<${k}>${OFFSET}</${k}>`);
    for (const k of ['title', 'mood', 'name']) expect(xml).not.toContain(`<${k}>${OFFSET}</${k}>`);
    const entry = renderXmlElement('lockerRelease', { release: { id: 3, title: Z }, lockerTracks: { lockerTrack: [{ track: { id: 4, title: Z }, purchaseDate: Z }] } }, 'lockerReleases');
    expect(entry).toContain(`<purchaseDate>${OFFSET}</purchaseDate>`);
    expect(entry).toContain(`<title>${Z}</title>`);
  });

  it('attributes are never timestamps', () => {
    const xml = renderXml({ status: 'ok', version: '1.2', link: { rel: Z, href: Z, id: Z } });
    expect(xml).toContain(`<link rel="${Z}" href="${Z}" id="${Z}"/>`);
  });
});

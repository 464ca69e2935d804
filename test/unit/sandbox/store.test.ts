// The sandbox's store: a request's nonce and its change in one transaction (one commit), and a
// change that fails undone while the nonce it used stays used.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { DB_FILE, Store, playlistBytes } from '../../../src/sandbox/store';
import { DemoData } from '../../../src/sandbox/demo-data';
import { fastTempDir } from '../../helpers/temp';

let dir: string;
let store: Store;
beforeEach(() => {
  dir = fastTempDir('mcat-store-');
  store = Store.open(path.join(dir, 'data'));
});
afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const playlistId = () => new DemoData(1).examples().playlistIds[0];

describe('Store.request', () => {
  it('commits the nonce and the change together: another connection sees neither until the request ends', () => {
    const other = new Database(path.join(dir, 'data', DB_FILE), { readonly: true });
    try {
      const seen = () => other.prepare("SELECT COUNT(*) AS n FROM nonces WHERE nonce = 'n1'").get() as { n: number };
      const name = () => (other.prepare('SELECT name FROM playlists WHERE id = ?').get(playlistId()) as { name: string }).name;
      const before = name();
      store.request(() => {
        expect(store.useNonce('k', 'n1', 1000)).toBe(true);
        store.write(() => {
          const row = store.getPlaylist(playlistId())!;
          row.name = 'renamed';
          store.savePlaylist(row);
        });
        // still one open transaction: nothing of it is committed yet
        expect(seen().n).toBe(0);
        expect(name()).toBe(before);
      });
      expect(seen().n).toBe(1);
      expect(name()).toBe('renamed');
    } finally {
      other.close();
    }
  });

  it('a change that fails is undone, the nonce it used stays used, and the failure is thrown', () => {
    const failure = new Error('over the storage bound');
    expect(() =>
      store.request(() => {
        store.useNonce('k', 'n2', 1000);
        store.write(() => {
          const row = store.getPlaylist(playlistId())!;
          row.name = 'not kept';
          store.savePlaylist(row);
          throw failure;
        });
      }),
    ).toThrow(failure);
    expect(store.getPlaylist(playlistId())!.name).not.toBe('not kept');
    expect(store.useNonce('k', 'n2', 1001)).toBe(false);
  });

  it('knows the stored size of a row it read or saved, as measuring it would give', () => {
    const row = store.getPlaylist(playlistId())!;
    expect(store.storedBytes(row)).toBe(playlistBytes(row));
    row.tracks = [];
    store.write(() => store.savePlaylist(row));
    expect(store.storedBytes(row)).toBe(playlistBytes(row));
    expect(store.storedBytes(store.getPlaylist(playlistId())!)).toBe(playlistBytes(row));
  });
});

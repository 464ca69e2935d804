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

  it('a nonce is refused within the 600 s window, and used again once past it (pruned or not yet)', () => {
    expect(store.useNonce('k', 'a', 1000)).toBe(true);
    expect(store.useNonce('k', 'a', 1599)).toBe(false);
    // the prune at 1599 keeps it (seen at 1000, after 1599 - 600); at 1605 it is past the window
    // but still stored: recorded again, and refused after that
    expect(store.useNonce('k', 'other', 1590)).toBe(true);
    expect(store.useNonce('k', 'a', 1605)).toBe(true);
    expect(store.useNonce('k', 'a', 1606)).toBe(false);
    // another key's nonce of the same text is its own
    expect(store.useNonce('k2', 'a', 1606)).toBe(true);
    // pruned: used again
    expect(store.useNonce('k', 'other', 2300)).toBe(true);
  });

  it('a data dir whose nonces table has a rowid and an index on seen (made before) keeps its nonces in the one b-tree', () => {
    store.close();
    const file = path.join(dir, 'data', DB_FILE);
    const db = new Database(file);
    db.exec('DROP TABLE nonces');
    db.exec('CREATE TABLE nonces (consumer_key TEXT NOT NULL, nonce TEXT NOT NULL, seen INTEGER NOT NULL, PRIMARY KEY (consumer_key, nonce))');
    db.exec('CREATE INDEX nonces_seen ON nonces (seen)');
    db.prepare('INSERT INTO nonces VALUES (?, ?, ?)').run('k', 'before', 1000);
    db.close();
    store = Store.open(path.join(dir, 'data'));
    expect(store.useNonce('k', 'before', 1100)).toBe(false);
    expect(store.useNonce('k', 'after', 1100)).toBe(true);
    const check = new Database(file, { readonly: true });
    try {
      expect(check.prepare("SELECT sql FROM sqlite_master WHERE name = 'nonces'").pluck().get()).toMatch(/WITHOUT ROWID/);
      expect(check.prepare("SELECT name FROM sqlite_master WHERE tbl_name LIKE 'nonces%' AND type = 'index'").pluck().all()).toEqual([]);
      expect(check.prepare('SELECT nonce FROM nonces ORDER BY nonce').pluck().all()).toEqual(['after', 'before']);
    } finally {
      check.close();
    }
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

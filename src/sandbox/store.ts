// The sandbox's mutable state in SQLite: playlists, groups, download counters and seen nonces.
// WAL and BEGIN IMMEDIATE transactions let two server processes share one data dir and lose
// no update: every read-modify-write holds the write lock from its read to its write.
import type Database from 'better-sqlite3';
import { openConnection, pragma, prepared, type Connection } from './sqlite';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { DemoData, USER_IDS } from './demo-data';
import { hex } from './prng';
import { secureDataDir, secureDbFiles } from './files';

export const DEFAULT_SEED = 1;
export const DB_FILE = 'sandbox.db';
const NONCE_TTL_S = 600;

export interface TrackEntry {
  id: string;
  trackId: string;
  source: string;
  dateAdded: string;
  [k: string]: unknown;
}

export interface PlaylistRow {
  id: string;
  owner: string;
  name: string;
  status: string;
  visibility: string;
  description: string;
  image: string;
  tags: { name: string; playlistPosition?: number }[];
  annotations: Record<string, unknown>;
  tracks: TrackEntry[];
  partnerId: string;
  lastUpdated: string;
}

export interface GroupRow {
  id: string;
  owner: string;
  name: string;
  playlistIds: string[];
  lastUpdated: string;
}

export interface RawPlaylist {
  id: string;
  owner: string;
  name: string;
  status: string;
  visibility: string;
  description: string;
  image: string;
  tags: string;
  annotations: string;
  tracks: string;
  partner_id: string;
  last_updated: string;
  size: number;
}

// The nonces seen, one b-tree (no rowid, no index on seen): a request writes one page of it, not
// three. The prune (every 30 s) scans it; it holds what 10 minutes brought.
const NONCES_TABLE = `CREATE TABLE IF NOT EXISTS nonces (
  consumer_key TEXT NOT NULL,
  nonce TEXT NOT NULL,
  seen INTEGER NOT NULL,
  PRIMARY KEY (consumer_key, nonce)
) WITHOUT ROWID;`;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS playlists (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  owner TEXT NOT NULL,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  visibility TEXT NOT NULL,
  description TEXT NOT NULL,
  image TEXT NOT NULL,
  tags TEXT NOT NULL,
  annotations TEXT NOT NULL,
  tracks TEXT NOT NULL,
  partner_id TEXT NOT NULL,
  last_updated TEXT NOT NULL,
  size INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS playlists_owner ON playlists (owner, seq);
CREATE TABLE IF NOT EXISTS groups (
  id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  name TEXT NOT NULL,
  playlist_ids TEXT NOT NULL,
  last_updated TEXT NOT NULL,
  size INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS downloads (
  user_id TEXT NOT NULL,
  track_id INTEGER NOT NULL,
  used INTEGER NOT NULL,
  PRIMARY KEY (user_id, track_id)
);
${NONCES_TABLE}
`;

export function newId(): string {
  return randomBytes(12).toString('hex');
}

export function nowIso(): string {
  return new Date().toISOString();
}

export class Store {
  readonly seed: number;
  private readonly db: Connection;
  private readonly stmts;
  /** one transaction wrapper for every write() and read: better-sqlite3 builds four functions per wrapper */
  private readonly tx: Database.Transaction<(fn: () => unknown) => unknown>;
  private lastPrune = 0;
  /** the stored size of each row read or saved (a change's growth is measured from it) */
  private readonly sizes = new WeakMap<PlaylistRow, number>();

  private constructor(db: Connection, seed: number) {
    this.db = db;
    this.seed = seed;
    this.tx = db.transaction((fn: () => unknown) => fn());
    this.stmts = {
      getPlaylist: prepared(db, 'SELECT * FROM playlists WHERE id = ?'),
      countPlaylists: prepared(db, 'SELECT COUNT(*) AS n FROM playlists WHERE owner = ?'),
      listPlaylists: prepared(db, 'SELECT * FROM playlists WHERE owner = ? ORDER BY seq LIMIT ? OFFSET ?'),
      insertPlaylist: prepared(db, INSERT_PLAYLIST),
      updatePlaylist: prepared(
        db,
        'UPDATE playlists SET name = @name, status = @status, visibility = @visibility, description = @description, image = @image, tags = @tags, annotations = @annotations, tracks = @tracks, last_updated = @last_updated, size = @size WHERE id = @id',
      ),
      getGroup: prepared(db, 'SELECT * FROM groups WHERE id = ?'),
      upsertGroup: prepared(
        db,
        'INSERT INTO groups (id, owner, name, playlist_ids, last_updated, size) VALUES (@id, @owner, @name, @playlist_ids, @last_updated, @size) ON CONFLICT(id) DO UPDATE SET name = excluded.name, playlist_ids = excluded.playlist_ids, last_updated = excluded.last_updated, size = excluded.size',
      ),
      usage: prepared(
        db,
        'SELECT (SELECT COUNT(*) FROM playlists WHERE owner = @owner) AS playlists, (SELECT COUNT(*) FROM groups WHERE owner = @owner) AS groups, (SELECT COALESCE(SUM(size), 0) FROM playlists WHERE owner = @owner) + (SELECT COALESCE(SUM(size), 0) FROM groups WHERE owner = @owner) AS bytes',
      ),
      // one query for a whole locker page (a 50-release page has ~400 tracks): json_each of the ids
      used: prepared(db, 'SELECT track_id AS track, used FROM downloads WHERE user_id = ? AND track_id IN (SELECT value FROM json_each(?))'),
      // a user with no download counted (the common case) needs no page query: one index probe
      anyUsed: prepared(db, 'SELECT 1 FROM downloads WHERE user_id = ? LIMIT 1').pluck(),
      consume: prepared(
        db,
        'INSERT INTO downloads (user_id, track_id, used) VALUES (@user, @track, 1) ON CONFLICT(user_id, track_id) DO UPDATE SET used = used + 1 WHERE used < @initial',
      ),
      useNonce: prepared(db, 'INSERT INTO nonces (consumer_key, nonce, seen) VALUES (?, ?, ?) ON CONFLICT (consumer_key, nonce) DO UPDATE SET seen = excluded.seen WHERE seen < ?'),
      pruneNonces: prepared(db, 'DELETE FROM nonces WHERE seen < ?'),
    };
  }

  /** `beforeReseed`: called before existing data is re-initialised for another seed; a throw leaves it as it is. */
  static open(dataDir: string, seed?: number, opts: { beforeReseed?: (seed: number) => void } = {}): Store {
    // users' data: 0600 files in a 0700 folder, never opened through a planted symlink
    secureDataDir(dataDir);
    const file = join(dataDir, DB_FILE);
    secureDbFiles(file);
    const db = openConnection(file, { timeout: 10_000 });
    pragma(db, 'journal_mode = WAL');
    pragma(db, 'synchronous = NORMAL');
    pragma(db, 'busy_timeout = 10000');
    const init = db.transaction(() => {
      db.exec(SCHEMA);
      migrate(db);
      const row = prepared(db, "SELECT value FROM meta WHERE key = 'seed'").get() as { value: string } | undefined;
      const stored = row ? Number(row.value) : undefined;
      const use = seed ?? stored ?? DEFAULT_SEED;
      if (stored === undefined || stored !== use) {
        if (stored !== undefined) opts.beforeReseed?.(use);
        wipe(db);
        prepared(db, "INSERT OR REPLACE INTO meta (key, value) VALUES ('seed', ?)").run(String(use));
        seedState(db, use);
      }
      return use;
    });
    let used: number;
    try {
      used = init.immediate();
    } catch (e) {
      db.close();
      throw e;
    }
    return new Store(db, used);
  }

  /** Wipes every change and puts back the demo state of the seed. */
  reset(): void {
    this.db
      .transaction(() => {
        wipe(this.db);
        seedState(this.db, this.seed);
      })
      .immediate();
  }

  close(): void {
    this.db.close();
  }

  /** Runs fn holding the write lock (BEGIN IMMEDIATE): reads inside see the latest committed state. */
  write<T>(fn: () => T): T {
    return this.tx.immediate(fn) as T;
  }

  /**
   * Runs a whole request in one write transaction, so that the nonce it uses and the change it
   * makes are committed together (one commit, not two). What fails inside a write() within it is
   * undone there (a savepoint); what was recorded before (the nonce: a replay stays refused) is
   * committed all the same, and the failure thrown after.
   */
  request<T>(fn: () => T): T {
    const out = this.tx.immediate(() => {
      try {
        return { ok: true as const, value: fn() };
      } catch (error) {
        return { ok: false as const, error };
      }
    }) as { ok: true; value: T } | { ok: false; error: unknown };
    if (!out.ok) throw out.error;
    return out.value;
  }

  // ---- nonces ----

  useNonce(key: string, nonce: string, nowS: number): boolean {
    const use = () => {
      if (nowS - this.lastPrune > 30) {
        this.stmts.pruneNonces.run(nowS - NONCE_TTL_S);
        this.lastPrune = nowS;
      }
      // one statement: a new nonce is recorded; one seen within the window is left alone (no
      // change: refused); one older than the window (it may be pruned at any time: expired, not
      // seen) is recorded again
      return this.stmts.useNonce.run(key, nonce, nowS, nowS - NONCE_TTL_S).changes === 1;
    };
    // inside a request's transaction already: a statement is atomic on its own, no savepoint needed
    return this.db.inTransaction ? use() : this.write(use);
  }

  // ---- playlists ----

  getPlaylist(id: string): PlaylistRow | undefined {
    const r = this.stmts.getPlaylist.get(id) as RawPlaylist | undefined;
    if (!r) return undefined;
    const row = fromRaw(r);
    this.sizes.set(row, r.size);
    return row;
  }

  /** The bytes a playlist takes as stored: as it was read (its size column), else measured. */
  storedBytes(p: PlaylistRow): number {
    return this.sizes.get(p) ?? playlistBytes(p);
  }

  listPlaylists(owner: string, offset: number, limit: number): { total: number; rows: PlaylistRow[] } {
    return this.tx.deferred(() => {
      const total = (this.stmts.countPlaylists.get(owner) as { n: number }).n;
      const rows = (this.stmts.listPlaylists.all(owner, limit, offset) as RawPlaylist[]).map(fromRaw);
      return { total, rows };
    }) as { total: number; rows: PlaylistRow[] };
  }

  insertPlaylist(p: PlaylistRow): void {
    this.stmts.insertPlaylist.run(toRaw(p));
  }

  /** Must run inside write() or request(). `raw`: the row as stored, when the caller has it already (playlistRaw). */
  savePlaylist(p: PlaylistRow, raw: RawPlaylist = toRaw(p)): void {
    this.stmts.updatePlaylist.run(raw);
    this.sizes.set(p, raw.size);
  }

  // ---- groups ----

  getGroup(id: string): GroupRow | undefined {
    const r = this.stmts.getGroup.get(id) as { id: string; owner: string; name: string; playlist_ids: string; last_updated: string } | undefined;
    return r ? { id: r.id, owner: r.owner, name: r.name, playlistIds: JSON.parse(r.playlist_ids), lastUpdated: r.last_updated } : undefined;
  }

  /** Must run inside write(). */
  saveGroup(g: GroupRow): void {
    this.stmts.upsertGroup.run(groupRaw(g));
  }

  playlistsByIds(ids: string[]): Map<string, PlaylistRow> {
    const out = new Map<string, PlaylistRow>();
    for (const id of ids) {
      const p = this.getPlaylist(id);
      if (p) out.set(id, p);
    }
    return out;
  }

  /** What a user stores: playlists and groups owned, and their bytes as stored. */
  usage(owner: string): { playlists: number; groups: number; bytes: number } {
    return this.stmts.usage.get({ owner }) as { playlists: number; groups: number; bytes: number };
  }

  // ---- downloads ----

  /** Whether any download of this user has been counted (the common case: none, one index probe). */
  hasDownloads(userId: string): boolean {
    return this.stmts.anyUsed.get(userId) !== undefined;
  }

  /** Downloads counted so far of each of these tracks (a track never downloaded is absent). */
  usedDownloads(userId: string, trackIds: readonly number[]): Map<number, number> {
    const used = new Map<number, number>();
    if (trackIds.length === 0 || !this.hasDownloads(userId)) return used;
    for (const r of this.stmts.used.all(userId, JSON.stringify(trackIds)) as { track: number; used: number }[]) used.set(r.track, r.used);
    return used;
  }

  /** Counts one download if any is left; false (nothing changed) when none is. Atomic in SQLite. */
  consumeDownload(userId: string, trackId: number, initial: number): boolean {
    if (initial <= 0) return false;
    return this.stmts.consume.run({ user: userId, track: trackId, initial }).changes === 1;
  }
}

function wipe(db: Connection): void {
  db.exec('DELETE FROM playlists; DELETE FROM groups; DELETE FROM downloads; DELETE FROM nonces;');
}

/** The demo playlists and group of the seed (the only stored part of the demo data). */
function seedState(db: Connection, seed: number): void {
  const demo = new DemoData(seed);
  const ex = demo.examples();
  const ins = prepared(db, INSERT_PLAYLIST);
  const t0 = Date.UTC(2024, 4, 1, 9, 0, 0);
  const mk = (id: string, owner: string, name: string, status: string, visibility: string, trackIds: number[], i: number): PlaylistRow => ({
    id,
    owner,
    name,
    status,
    visibility,
    description: `${name}: a demo playlist of the sandbox`,
    image: `https://images.sandbox.invalid/playlist/${id}_$size$.jpg`,
    tags: [{ name: 'demo', playlistPosition: 1 }, { name: 'sandbox' }],
    annotations: { origin: 'sandbox demo data' },
    tracks: trackIds.map((t, k) => ({
      id: hex(24, seed, 77, i, k),
      trackId: String(t),
      source: '7digital',
      dateAdded: new Date(t0 + i * 86400000 + k * 60000).toISOString(),
    })),
    partnerId: 'sandbox',
    lastUpdated: new Date(t0 + i * 86400000 + 3600000).toISOString(),
  });
  const [p1, p2, p3] = ex.playlistIds;
  const rows = [
    mk(p1, USER_IDS.locker, 'Morning Commute', 'published', 'public', ex.trackIds.slice(0, 4), 0),
    mk(p2, USER_IDS.locker, 'Late Night Focus', 'draft', 'private', ex.trackIds.slice(2, 5), 1),
    mk(p3, USER_IDS.locker, 'Empty For Now', 'draft', 'private', [], 2),
    mk(hex(24, seed, 10, 50), USER_IDS.other, 'Someone Else’s Mix', 'published', 'private', ex.trackIds.slice(0, 2), 3),
  ];
  for (const r of rows) ins.run(toRaw(r));
  prepared(db, 'INSERT INTO groups (id, owner, name, playlist_ids, last_updated, size) VALUES (@id, @owner, @name, @playlist_ids, @last_updated, @size)').run(
    groupRaw({ id: ex.groupId, owner: USER_IDS.locker, name: 'Everyday Listening', playlistIds: [p1, p2], lastUpdated: new Date(t0 + 5 * 86400000).toISOString() }),
  );
}

const INSERT_PLAYLIST =
  'INSERT INTO playlists (id, owner, name, status, visibility, description, image, tags, annotations, tracks, partner_id, last_updated, size) VALUES (@id, @owner, @name, @status, @visibility, @description, @image, @tags, @annotations, @tracks, @partner_id, @last_updated, @size)';

/** Data dirs made before the size columns or the nonces' one b-tree: add them, count and copy what is there. */
function migrate(db: Connection): void {
  const nonces = prepared(db, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'nonces'").pluck().get() as string;
  if (!/WITHOUT\s+ROWID/i.test(nonces)) {
    db.exec('ALTER TABLE nonces RENAME TO nonces_old');
    db.exec(NONCES_TABLE);
    db.exec('INSERT OR REPLACE INTO nonces (consumer_key, nonce, seen) SELECT consumer_key, nonce, seen FROM nonces_old');
    db.exec('DROP TABLE nonces_old');
  }
  db.exec('DROP INDEX IF EXISTS nonces_seen');
  const bytes = (cols: string[]) => cols.map((c) => `length(CAST(${c} AS BLOB))`).join(' + ');
  const counted: Record<string, string[]> = {
    playlists: ['id', 'name', 'status', 'visibility', 'description', 'image', 'tags', 'annotations', 'tracks', 'partner_id', 'last_updated'],
    groups: ['id', 'name', 'playlist_ids', 'last_updated'],
  };
  for (const [table, cols] of Object.entries(counted)) {
    const have = prepared(db, `PRAGMA table_info(${table})`).all() as { name: string }[];
    if (!have.some((c) => c.name === 'size')) {
      db.exec(`ALTER TABLE ${table} ADD COLUMN size INTEGER NOT NULL DEFAULT 0`);
      db.exec(`UPDATE ${table} SET size = ${bytes(cols)}`);
    }
    // covering indexes: a user's usage is summed without reading the large columns
    db.exec(`CREATE INDEX IF NOT EXISTS ${table}_usage ON ${table} (owner, size)`);
  }
}

/** Bytes of the text values of a row (what a user's storage bound counts). */
function bytesOf(values: string[]): number {
  let n = 0;
  for (const v of values) n += Buffer.byteLength(v, 'utf8');
  return n;
}

/** The bytes a playlist takes as stored. */
export function playlistBytes(p: PlaylistRow): number {
  return toRaw(p).size;
}

/** A playlist as stored (its size included): measured once, then saved (savePlaylist). */
export function playlistRaw(p: PlaylistRow): RawPlaylist {
  return toRaw(p);
}

/** The bytes a group takes as stored. */
export function groupBytes(g: GroupRow): number {
  return groupRaw(g).size;
}

function groupRaw(g: GroupRow) {
  const raw = { id: g.id, owner: g.owner, name: g.name, playlist_ids: JSON.stringify(g.playlistIds), last_updated: g.lastUpdated };
  return { ...raw, size: bytesOf([raw.id, raw.name, raw.playlist_ids, raw.last_updated]) };
}

function toRaw(p: PlaylistRow): RawPlaylist {
  const raw = {
    id: p.id,
    owner: p.owner,
    name: p.name,
    status: p.status,
    visibility: p.visibility,
    description: p.description,
    image: p.image,
    tags: JSON.stringify(p.tags),
    annotations: JSON.stringify(p.annotations),
    tracks: JSON.stringify(p.tracks),
    partner_id: p.partnerId,
    last_updated: p.lastUpdated,
  };
  const { owner: _o, ...text } = raw;
  return { ...raw, size: bytesOf(Object.values(text)) };
}

function fromRaw(r: RawPlaylist): PlaylistRow {
  return {
    id: r.id,
    owner: r.owner,
    name: r.name,
    status: r.status,
    visibility: r.visibility,
    description: r.description,
    image: r.image,
    tags: JSON.parse(r.tags),
    annotations: JSON.parse(r.annotations),
    tracks: JSON.parse(r.tracks),
    partnerId: r.partner_id,
    lastUpdated: r.last_updated,
  };
}

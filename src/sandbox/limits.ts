// How much one caller may send and store. The sandbox runs on a user's machine and keeps its
// state in one SQLite file: without bounds, one client storing twenty 9 MB playlists made the
// file 767 MB and every other reader wait seconds. Past a bound the request is refused, whole,
// with HTTP 413 and API error 1003 (out of range); nothing is stored.

export interface Limits {
  /** bytes of one request body; a larger one is refused before it is read in full */
  bodyBytes: number;
  /** tracks in one playlist */
  tracksPerPlaylist: number;
  /** playlists one user may own */
  playlistsPerUser: number;
  /** playlist groups one user may own */
  groupsPerUser: number;
  /** playlist ids one group may hold */
  playlistsPerGroup: number;
  /** bytes one user may store, playlists and groups together (as stored: JSON text, UTF-8) */
  storedBytesPerUser: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  bodyBytes: 2 * MiB,
  tracksPerPlaylist: 5000,
  playlistsPerUser: 1000,
  groupsPerUser: 100,
  playlistsPerGroup: 1000,
  storedBytesPerUser: 20 * MiB,
});

const NAMES: Record<string, keyof Limits> = {
  body: 'bodyBytes',
  tracks: 'tracksPerPlaylist',
  playlists: 'playlistsPerUser',
  groups: 'groupsPerUser',
  'group-size': 'playlistsPerGroup',
  storage: 'storedBytesPerUser',
};
const SIZES = new Set<keyof Limits>(['bodyBytes', 'storedBytesPerUser']);

function size(name: string, v: string): number {
  // (k, m and g alone too, as mcat's --max-body takes them)
  const m = /^(\d+)\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?$/i.exec(v.trim());
  if (!m) throw new Error(`--limits ${name} must be a size such as 512KiB or 2MiB, got '${v}'`);
  const unit = (m[2] ?? 'b').toLowerCase();
  const mult = unit.startsWith('k') ? 1024 : unit.startsWith('m') ? MiB : unit.startsWith('g') ? 1024 * MiB : 1;
  return Number(m[1]) * mult;
}

/** Parses `body=2MiB,tracks=5000,playlists=1000,groups=100,group-size=1000,storage=20MiB`; unnamed bounds keep their defaults. */
export function parseLimits(spec: string | undefined, base: Partial<Limits> = {}): Limits {
  const out: Limits = { ...DEFAULT_LIMITS, ...base };
  if (!spec || !spec.trim()) return out;
  for (const part of spec.split(',')) {
    if (!part.trim()) continue;
    const eq = part.indexOf('=');
    if (eq < 0) throw new Error(`invalid --limits item '${part.trim()}' (expected name=value)`);
    const name = part.slice(0, eq).trim().toLowerCase();
    const key = NAMES[name];
    if (!key) throw new Error(`unknown --limits item '${name}' (known: ${Object.keys(NAMES).join(', ')})`);
    const value = part.slice(eq + 1).trim();
    let n: number;
    if (SIZES.has(key)) n = size(name, value);
    else {
      if (!/^\d+$/.test(value)) throw new Error(`--limits ${name} must be a whole number, got '${value}'`);
      n = Number(value);
    }
    if (!Number.isSafeInteger(n)) throw new Error(`--limits ${name} is too large, got '${value}'`);
    if (!(n >= 1)) throw new Error(`--limits ${name} must be at least 1, got '${value}'`);
    out[key] = n;
  }
  return out;
}

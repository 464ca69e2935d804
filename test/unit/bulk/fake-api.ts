// An in-memory stand-in for the playlist API as the bulk engine sees it: it implements the
// client's own PlaylistApi (so the compiler catches drift), and each call goes through the
// client's real retry and rate policy, as every request of the real client does. Injectable
// faults, per attempt: errors before a change, errors after it (the response lost), 429s, and a
// simulated SIGKILL that freezes the world at a chosen call.
import { ApiError, AuthError, HttpError, NetworkError } from '../../../src/client/errors';
import type {
  CreateBody,
  CreateOptions,
  DetailsBody,
  GroupQuery,
  ListPlaylistsOptions,
  Playlist,
  PlaylistApi,
  PlaylistQuery,
  ReplaceBody,
  TrackInput,
} from '../../../src/client/playlist-api';
import { RateLimiter, RETRY_STATUSES, RetryPolicy, type Attempted } from '../../../src/client/policy';

export type FnName = keyof PlaylistApi;
export interface Call {
  fn: FnName;
  n: number;
  args: unknown[];
}
export type Fault =
  | { kind: 'before'; error: Error }
  | { kind: 'after'; error: Error }
  | { kind: 'crash'; applied?: boolean };

interface StoredPlaylist {
  id: string;
  owner: string;
  name: string;
  status: string;
  visibility: string;
  description: string;
  image: string;
  annotations: Record<string, string>;
  tracks: TrackInput[];
  lastUpdated: string;
}

const cap = (s: string) => (s ? s[0].toUpperCase() + s.slice(1) : s);

/** The client's policy with waits of a millisecond or two: `retries` retries a call. */
export function fastPolicy(retries = 3): RetryPolicy {
  return new RetryPolicy({ retries, backoffBaseMs: 1, maxBackoffMs: 2, limiter: new RateLimiter({ defaultPauseMs: 1 }) });
}

/** An answer with no body: what the policy sees of a fake call (with the sandbox's generous X-RateLimit-*). */
function answer(status: number, label: string): Attempted {
  return {
    status,
    headers: { 'x-ratelimit-limit': '1000000', 'x-ratelimit-current': '1', 'x-ratelimit-reset': '60' },
    ms: 0,
    label,
    text: async () => '',
    bytes: async () => Buffer.alloc(0),
    stream: () => {
      throw new Error('no stream');
    },
    discard: async () => undefined,
  };
}

export class FakeApi implements PlaylistApi {
  playlists = new Map<string, StoredPlaylist>();
  groups = new Map<string, { owner: string; name: string; playlistIds: string[] }>();
  calls: Call[] = [];
  /** number of times each (group, playlist) pair was newly added */
  groupAdds = new Map<string, number>();
  creates = 0;
  frozen = false;
  nextId = 1;
  fault: (c: Call) => Fault | undefined = () => undefined;
  onCrash: () => void = () => {};
  /** when true, details merges annotations rather than replacing them */
  detailsMergesAnnotations = false;
  /** async delay per call, to let calls overlap */
  delayMs = 0;
  maxConcurrent = 0;
  private concurrent = 0;
  /** retries of the client's policy (each run's: see forRun) */
  retries = 3;
  /** the client's policy every call goes through */
  policy: RetryPolicy = fastPolicy();
  constructor(readonly defaultUser = 'u1') {}

  newId(): string {
    return (this.nextId++).toString(16).padStart(24, '0');
  }

  seed(owner: string, p: Partial<StoredPlaylist> & { name: string }): string {
    const id = p.id ?? this.newId();
    this.playlists.set(id, {
      id,
      owner,
      status: 'draft',
      visibility: 'private',
      description: '',
      image: '',
      annotations: {},
      tracks: [],
      lastUpdated: new Date(0).toISOString(),
      ...p,
    });
    return id;
  }

  /**
   * One call as the client makes it: attempts through the policy. A fault that is an HTTP answer
   * the policy retries (429, 502/503/504) comes back to it as that status; a reset is thrown to it.
   */
  private async call<T>(fn: FnName, args: unknown[], apply: () => T, how: { safe: boolean; confirmNotApplied?: () => Promise<boolean> } = { safe: true }): Promise<T> {
    let value!: T;
    let failure: Error | undefined;
    // a call belongs to the process that made it: after a crash, its retries are never sent
    const gen = this.epoch;
    const a = await this.policy.send(
      async () => {
        if (this.epoch !== gen) return new Promise<Attempted>(() => {});
        failure = undefined;
        try {
          value = await this.attempt(fn, args, apply);
          return answer(200, fn);
        } catch (e) {
          const status = (e as { httpStatus?: number }).httpStatus;
          if (status !== undefined && RETRY_STATUSES.has(status)) {
            failure = e as Error;
            return answer(status, fn);
          }
          throw e;
        }
      },
      how,
    );
    if (a.status !== 200) throw Object.assign(failure!, { attempts: a.attempts });
    return value;
  }

  private async attempt<T>(fn: FnName, args: unknown[], apply: () => T): Promise<T> {
    if (this.frozen) return new Promise<T>(() => {});
    const c: Call = { fn, n: this.calls.length + 1, args };
    this.calls.push(c);
    this.concurrent++;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.concurrent);
    try {
      const gen = this.epoch;
      if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
      else await Promise.resolve();
      if (this.epoch !== gen) {
        // in flight when the client process died: the server still commits it; nobody hears back
        try {
          apply();
        } catch {
          // an error answer nobody reads
        }
        return new Promise<T>(() => {});
      }
      if (this.frozen) return new Promise<T>(() => {});
      const f = this.fault(c);
      if (f?.kind === 'before') throw f.error;
      if (f?.kind === 'crash' && f.applied === false) {
        this.frozen = true;
        this.epoch++;
        this.onCrash();
        return new Promise<T>(() => {});
      }
      let r!: T;
      try {
        r = apply();
      } catch (e) {
        // a kill while the server answers an error is a kill all the same
        if (f?.kind !== 'crash') throw e;
      }
      if (f?.kind === 'after') throw f.error;
      if (f?.kind === 'crash') {
        this.frozen = true;
        this.epoch++;
        this.onCrash();
        return new Promise<T>(() => {});
      }
      return structuredClone(r);
    } finally {
      this.concurrent--;
    }
  }

  private own(id: string, q: PlaylistQuery): StoredPlaylist {
    const p = this.playlists.get(id);
    if (!p) throw new ApiError(2001, 'Playlist not found', 404);
    if (p.owner !== (q.userId ?? this.defaultUser)) throw new AuthError('OAuth authentication error: access to resource denied', 401);
    return p;
  }

  view(p: StoredPlaylist): Playlist {
    return {
      id: p.id,
      name: p.name,
      status: cap(p.status),
      visibility: cap(p.visibility),
      description: p.description,
      image: p.image,
      annotations: { ...p.annotations },
      tags: [],
      tracks: p.tracks.map((t, i) => ({ ...t, id: String(i + 1), source: 'catalogue', audioUrl: 'x', dateAdded: 'd', image: 'i' })),
      lastUpdated: p.lastUpdated,
    };
  }

  private setFields(p: StoredPlaylist, b: DetailsBody, mergeAnnotations: boolean) {
    if (b.name !== undefined) p.name = b.name;
    if (b.status !== undefined) p.status = b.status;
    if (b.visibility !== undefined) p.visibility = b.visibility;
    if (b.description !== undefined) p.description = [...b.description].slice(0, 500).join('');
    if (b.imageUrl !== undefined) p.image = b.imageUrl;
    if (b.annotations !== undefined) {
      const given = Object.fromEntries(Object.entries(b.annotations).map(([k, v]) => [k, String(v)]));
      p.annotations = mergeAnnotations ? { ...p.annotations, ...given } : given;
    }
    p.lastUpdated = new Date(this.calls.length * 1000).toISOString();
  }

  listPlaylists(q: ListPlaylistsOptions) {
    return this.call('listPlaylists', [q], () => {
      const user = q.userId ?? this.defaultUser;
      const all = [...this.playlists.values()].filter((p) => p.owner === user);
      const page = q.page ?? 1;
      const size = q.pageSize ?? 10;
      const slice = all.slice((page - 1) * size, page * size);
      return {
        playlists: {
          page,
          pageSize: size,
          totalItems: all.length,
          playlist: slice.map((p) => {
            const v = this.view(p);
            delete v.tracks;
            return { ...v, trackCount: p.tracks.length };
          }),
        },
      };
    });
  }

  getPlaylist(id: string, q: PlaylistQuery) {
    return this.call('getPlaylist', [id, q], () => ({ playlist: this.view(this.own(id, q)) }));
  }

  createPlaylist(body: CreateBody, q: PlaylistQuery, how: CreateOptions = {}) {
    return this.call('createPlaylist', [structuredClone(body), q], () => {
      this.creates++;
      const id = this.newId();
      const p: StoredPlaylist = {
        id,
        owner: q.userId ?? this.defaultUser,
        name: body.name,
        status: 'draft',
        visibility: 'private',
        description: '',
        image: '',
        annotations: {},
        tracks: (body.tracks ?? []).map((t) => ({ ...t })),
        lastUpdated: '',
      };
      this.setFields(p, body, false);
      this.playlists.set(id, p);
      return { playlist: this.view(p) };
    }, { safe: false, confirmNotApplied: how.confirmNotApplied });
  }

  updatePlaylistDetails(id: string, body: DetailsBody, q: PlaylistQuery) {
    return this.call('updatePlaylistDetails', [id, structuredClone(body), q], () => {
      const p = this.own(id, q);
      this.setFields(p, body, this.detailsMergesAnnotations);
      return { playlist: this.view(p) };
    });
  }

  replacePlaylist(id: string, body: ReplaceBody, q: PlaylistQuery) {
    return this.call('replacePlaylist', [id, structuredClone(body), q], () => {
      const p = this.own(id, q);
      this.setFields(p, body, false);
      p.tracks = body.tracks.map((t) => ({ ...t }));
      return { playlist: this.view(p) };
    });
  }

  replaceGroup(groupId: string, body: { name: string; playlistIds?: string[] }, q: GroupQuery) {
    return this.call('replaceGroup', [groupId, structuredClone(body), q], () => {
      const g = { owner: q.userId, name: body.name, playlistIds: [...new Set(body.playlistIds ?? [])] };
      this.groups.set(groupId, g);
      return { playlistGroup: { id: groupId, name: g.name, playlists: g.playlistIds.map((id) => ({ id })) } };
    });
  }

  addToGroup(groupId: string, body: { playlistIds: string[] }, q: GroupQuery) {
    return this.call('addToGroup', [groupId, structuredClone(body), q], () => {
      let g = this.groups.get(groupId);
      if (!g) {
        g = { owner: q.userId, name: '', playlistIds: [] };
        this.groups.set(groupId, g);
      }
      for (const id of body.playlistIds) {
        if (!g.playlistIds.includes(id)) {
          g.playlistIds.push(id);
          const k = `${groupId}/${id}`;
          this.groupAdds.set(k, (this.groupAdds.get(k) ?? 0) + 1);
        }
      }
      return { playlistGroup: { id: groupId, name: g.name, playlists: g.playlistIds.map((id) => ({ id })) } };
    });
  }

  /** like the sandbox: a group that does not exist is error 2001 (the read changes nothing) */
  readGroup(groupId: string, q: GroupQuery) {
    return this.call('readGroup', [groupId, q], () => {
      const g = this.groups.get(groupId);
      if (!g) throw new ApiError(2001, 'Playlist group not found', 404);
      if (g.owner !== q.userId) throw new AuthError('access to resource denied', 401);
      return { playlistGroup: { id: groupId, name: g.name, playlists: g.playlistIds.map((id) => ({ id })) } };
    });
  }

  /** bumped by a crash: calls from a process started before it never return (it is dead) */
  epoch = 0;

  /** the API as seen by one process (a client, with a policy of its own): after a crash, that process makes no more calls */
  forRun(): PlaylistApi {
    this.policy = fastPolicy(this.retries);
    const gen = this.epoch;
    const wrap =
      <A extends unknown[], R>(f: (...a: A) => Promise<R>) =>
      (...a: A): Promise<R> =>
        gen === this.epoch ? f.apply(this, a) : new Promise<R>(() => {});
    return {
      listPlaylists: wrap(this.listPlaylists),
      getPlaylist: wrap(this.getPlaylist),
      createPlaylist: wrap(this.createPlaylist),
      updatePlaylistDetails: wrap(this.updatePlaylistDetails),
      replacePlaylist: wrap(this.replacePlaylist),
      replaceGroup: wrap(this.replaceGroup),
      addToGroup: wrap(this.addToGroup),
      readGroup: wrap(this.readGroup),
    };
  }

  /** the same world, unfrozen, with no faults: the server after a crash, seen by a new process */
  revive(): this {
    this.frozen = false;
    this.fault = () => undefined;
    this.onCrash = () => {};
    return this;
  }
}

export const transient = {
  reset: () => new NetworkError('socket hang up', 'ECONNRESET'),
  server: () => new ApiError(9001, 'Unexpected server error', 503),
  gateway: () => new HttpError(503, 'HTTP 503'),
  rateLimited: () => new HttpError(429, 'HTTP 429'),
};

/** A small deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

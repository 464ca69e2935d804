// Shared set-up of the contract tests: one sandbox per test file, credentials by role.
import { afterAll, beforeAll } from 'vitest';
import { startTestSandbox } from '../helpers/sandbox';
import { call, urlOf, type CallOptions, type Creds } from './signer';

export type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;

export interface World {
  sb: Sandbox;
  /** consumer entitled to several countries */
  multi: { key: string; secret: string; countries: string[] };
  /** consumer entitled to one country */
  single: { key: string; secret: string; countries: string[] };
  user(userId: string): Creds;
  locker: Creds;
  big: Creds;
  empty: Creds;
  other: Creds;
  app: Creds;
  get(path: string, query?: Record<string, string | number | undefined>, o?: CallOptions): ReturnType<typeof call>;
  req(method: string, path: string, query?: Record<string, string | number | undefined>, o?: CallOptions): ReturnType<typeof call>;
}

export function useSandbox(opts: Parameters<typeof startTestSandbox>[0] = {}): World {
  const w = {} as World;
  beforeAll(async () => {
    const sb = await startTestSandbox(opts);
    const multi = sb.info.consumers.find((c) => c.countries.length > 1)!;
    const single = sb.info.consumers.find((c) => c.countries.length === 1)!;
    const user = (userId: string): Creds => {
      const u = sb.info.users.find((x) => x.userId === userId)!;
      return { consumerKey: multi.key, consumerSecret: multi.secret, token: u.token, tokenSecret: u.tokenSecret };
    };
    const ex = sb.info.examples;
    const others = sb.info.users.filter((u) => ![ex.lockerUser, ex.bigLockerUser, ex.emptyUser].includes(u.userId));
    Object.assign(w, {
      sb,
      multi,
      single,
      user,
      locker: user(ex.lockerUser),
      big: user(ex.bigLockerUser),
      empty: user(ex.emptyUser),
      other: user(others[0].userId),
      app: { consumerKey: multi.key, consumerSecret: multi.secret },
      get: (path: string, query = {}, o: CallOptions = {}) => call('GET', urlOf(sb.baseUrl, path, query), o),
      req: (method: string, path: string, query = {}, o: CallOptions = {}) => call(method, urlOf(sb.baseUrl, path, query), o),
    });
  });
  afterAll(async () => {
    await w.sb?.close();
  });
  return w;
}

export function otherUserId(w: World): string {
  const ex = w.sb.info.examples;
  return w.sb.info.users.find((u) => ![ex.lockerUser, ex.bigLockerUser, ex.emptyUser].includes(u.userId))!.userId;
}

// Generated from src/sandbox/public.ts by scripts/sandbox-types.mjs: do not edit.
export interface StartSandboxOptions {
    /** port to listen on; default 0, any free port */
    port?: number;
    /** address to listen on; default 127.0.0.1 */
    host?: string;
    /** where the state (playlists, groups, download counters) lives; default a fresh temporary directory that stop() removes */
    dataDir?: string;
    /** seed of the demo data; default 1 */
    seed?: number;
    /** fault injection, e.g. 'latency=50ms,error=0.1,429=0.05' */
    faults?: string;
    /** a rate limit per consumer key, e.g. '600/min' */
    rateLimit?: string;
    /** storage bounds, e.g. 'tracks=500,storage=5MiB' */
    limits?: string;
    /** append one NDJSON line per request to this file */
    log?: string;
}
export interface SandboxConsumer {
    key: string;
    secret: string;
    countries: string[];
}
export interface SandboxUser {
    userId: string;
    token: string;
    tokenSecret: string;
}
/** Ready-made credentials: a consumer entitled to several countries, and the user who has a locker, playlists and a group. */
export interface SandboxCredentials {
    consumerKey: string;
    consumerSecret: string;
    token: string;
    tokenSecret: string;
    userId: string;
    country: string;
}
export interface SandboxExamples {
    lockerUser: string;
    bigLockerUser: string;
    emptyUser: string;
    artistWithManyReleases: number;
    artistWithNoReleases: number;
    releaseIds: number[];
    unknownReleaseId: number;
    unlicensedReleaseId: number;
    trackIds: number[];
    playlistIds: string[];
    groupId: string;
}
export interface Sandbox {
    /** e.g. http://127.0.0.1:40123 */
    baseUrl: string;
    credentials: SandboxCredentials;
    consumers: SandboxConsumer[];
    users: SandboxUser[];
    examples: SandboxExamples;
    /** stops the server (and removes the temporary data dir it made) */
    stop(): Promise<void>;
}
/** Starts a sandbox on 127.0.0.1 and a free port; resolves once it answers. */
export declare function startSandbox(options?: StartSandboxOptions): Promise<Sandbox>;

// The real service's official Node client (npm 7digital-api 1.0.0, written and tested against the
// live API), pointed at a sandbox. Two adjustments only, both forced by a plain-HTTP local port:
//   1. it builds https:// URLs for signed calls: they are made (and signed) as http:// instead;
//   2. it sends a Host header without the port: the port is added.
// Nothing else of the client is changed; every call goes through its own code.
import http from 'node:http';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';

const require = createRequire(import.meta.url);
const clientRequire = createRequire(require.resolve('7digital-api'));
 
type Any = any;
const sevenDigital: Any = require('7digital-api');
const NodeOAuth: Any = clientRequire('oauth').OAuth;

const silent = { silly() {}, debug() {}, verbose() {}, info() {}, warn() {}, error() {} };

let installed = 0;
let undo: (() => void) | undefined;

/** Installs the two adjustments for requests to host:port; returns a function that removes them. */
export function adjustForLocalPort(host: string, port: number): () => void {
  if (installed++ === 0) {
    const perform = NodeOAuth.prototype._performSecureRequest;
    // 1: the URL is made http:// before node-oauth signs and sends it
    NodeOAuth.prototype._performSecureRequest = function (this: Any, token: Any, secret: Any, method: Any, url: string, ...rest: Any[]) {
      return perform.call(this, token, secret, method, url.replace(/^https:\/\//, 'http://'), ...rest);
    };
    // 2: a Host header naming the host without its port gets the port
    const request = http.request;
    http.request = function (this: Any, ...args: Any[]) {
      const o = args[0];
      if (o && typeof o === 'object' && !(o instanceof URL) && o.headers) {
        const name = Object.keys(o.headers).find((k) => k.toLowerCase() === 'host');
        const p = Number(o.port);
        if (name && o.headers[name] === host && p === port) o.headers = { ...o.headers, [name]: `${host}:${port}` };
      }
      return (request as Any).apply(this, args);
    } as typeof http.request;
    undo = () => {
      NodeOAuth.prototype._performSecureRequest = perform;
      http.request = request;
    };
  }
  return () => {
    if (--installed === 0) undo?.();
  };
}

/** What the sandbox implements beyond the client's own schema, declared through its `configure(options, schema)`. */
function schemaFor(host: string, port: number) {
  const base = JSON.parse(JSON.stringify(sevenDigital.schema));
  const u = (o: Any) => ({ oauth: '3-legged', method: 'GET', ...o });
  return {
    ...base,
    host,
    sslHost: host,
    port,
    // the enhanced metadata path has no version segment: resources give their prefix themselves
    prefix: '',
    resources: {
      ...Object.fromEntries(Object.entries(base.resources).map(([k, r]: [string, Any]) => [k, { ...r, prefix: '1.2' }])),
      ReleaseBatch: { resource: 'release', prefix: '1.2', actions: [{ apiCall: 'details/batch', methodName: 'getDetailsBatch' }, { apiCall: 'details/batch', methodName: 'getDetailsBatchSigned', oauth: '2-legged' }] },
      Enhanced: { resource: 'track', actions: [{ apiCall: 'by-id/:trackId/metadata/enhanced', methodName: 'getEnhanced', oauth: '2-legged' }] },
      Playlists: {
        resource: 'playlists',
        prefix: '1.2',
        actions: [
          u({ apiCall: ':playlistId', methodName: 'get' }),
          u({ apiCall: ':playlistId', methodName: 'replace', method: 'POST' }),
          u({ apiCall: ':playlistId/details', methodName: 'updateDetails', method: 'POST' }),
          u({ apiCall: '', methodName: 'create', method: 'POST' }),
        ],
      },
      UserPlaylists: {
        resource: 'user',
        prefix: '1.2',
        actions: [
          u({ apiCall: 'playlists', methodName: 'getPlaylists' }),
          u({ apiCall: 'playlists/groups/:groupId', methodName: 'getGroup' }),
          u({ apiCall: 'playlists/groups/:groupId', methodName: 'replaceGroup', method: 'PUT' }),
          u({ apiCall: 'playlists/groups/:groupId', methodName: 'addToGroup', method: 'POST' }),
        ],
      },
    },
  };
}

export interface OfficialClient {
  api: Any;
  /** a resource's method, promisified: call('User', 'getLocker', {...}) */
  call(resource: string, method: string, params?: Record<string, unknown>): Promise<Any>;
}

/** The official client configured for a sandbox: its own methods and the declared ones, JSON or XML. */
export function officialClient(baseUrl: string, creds: { key: string; secret: string }, format: 'json' | 'xml'): OfficialClient {
  const u = new URL(baseUrl);
  const api = sevenDigital.configure(
    {
      consumerkey: creds.key,
      consumersecret: creds.secret,
      // the client parses by the response's content type: XML is asked for by the Accept header
      format: 'json',
      headers: format === 'xml' ? { Accept: 'application/xml' } : { Accept: 'application/json' },
      logger: silent,
    },
    schemaFor(u.hostname, Number(u.port)),
  );
  return {
    api,
    call: (resource, method, params = {}) => {
      const r = new api[resource]();
      return promisify(r[method].bind(r))({ ...params });
    },
  };
}

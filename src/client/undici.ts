// Only the parts of undici the client uses: the Agent (keep-alive pools) and the request API.
// The package's index also loads fetch, WebSocket, EventSource, caches, mocks and proxies,
// ~40 ms of every start-up for nothing; these deep paths are what that index itself wires up.
import type { Agent as AgentType, Dispatcher as DispatcherType } from 'undici';
// @ts-expect-error undici publishes no types for its internal paths
import AgentImpl from 'undici/lib/dispatcher/agent.js';
// @ts-expect-error as above
import DispatcherImpl from 'undici/lib/dispatcher/dispatcher.js';
// @ts-expect-error as above
import api from 'undici/lib/api/index.js';

// index.js does the same: the request/stream/pipeline methods live on every dispatcher.
Object.assign((DispatcherImpl as { prototype: object }).prototype, api);

export const Agent = AgentImpl as typeof AgentType;

/** undici's `request(url, opts)`: the URL split into origin and path, sent through opts.dispatcher. */
export function request(
  url: string | URL,
  opts: Omit<DispatcherType.RequestOptions, 'origin' | 'path'> & { dispatcher: DispatcherType },
): Promise<DispatcherType.ResponseData> {
  const u = typeof url === 'string' ? new URL(url) : url;
  const { dispatcher, ...rest } = opts;
  return dispatcher.request({ ...rest, origin: u.origin, path: `${u.pathname}${u.search}` } as DispatcherType.RequestOptions);
}

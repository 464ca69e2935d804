// Only the parts of undici the client uses: the Agent (keep-alive pools) and its request method.
// The package's index also loads fetch, WebSocket, EventSource, caches, mocks and proxies,
// ~40 ms of every start-up for nothing; these deep paths are what that index itself wires up.
import type { Agent as AgentType, Dispatcher as DispatcherType } from 'undici';
// @ts-expect-error undici publishes no types for its internal paths
import AgentImpl from 'undici/lib/dispatcher/agent.js';
// @ts-expect-error as above
import DispatcherImpl from 'undici/lib/dispatcher/dispatcher.js';
// @ts-expect-error as above
import apiRequest from 'undici/lib/api/api-request.js';

// index.js puts request, stream, pipeline, upgrade and connect on every dispatcher; the client
// uses request alone (the others load stream-pipeline code that every run would pay for).
(DispatcherImpl as { prototype: Record<string, unknown> }).prototype.request = apiRequest;

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

// A server standing in for the API where a test holds mcat to "nothing sent": it answers every
// request 500 and counts it. Started before the file's tests, closed after them.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll } from 'vitest';

export function uncalledServer(): { readonly baseUrl: string; readonly requests: number } {
  let server: Server | undefined;
  let requests = 0;
  let baseUrl = '';
  beforeAll(async () => {
    server = createServer((_req, res) => {
      requests++;
      res.writeHead(500, { 'content-type': 'text/plain' }).end('this server stands for an API that must not be called');
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const a = server.address();
    baseUrl = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
  });
  afterAll(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));
  return {
    get baseUrl() {
      return baseUrl;
    },
    get requests() {
      return requests;
    },
  };
}

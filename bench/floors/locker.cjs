// The floor of `mcat locker --all -o ndjson`: the same walk in a bare Node script. Signed GETs of
// 50 releases a page, page 1 first (its total gives the pages), then up to 4 pages in flight
// (mcat's default), each JSON.parsed and written as one JSON.stringify line per release, in
// order, honouring back-pressure. Nothing validated, cleaned, deduplicated or retried; no worker.
'use strict';
const http = require('node:http');
const { URLSearchParams } = require('node:url');
const { authorization } = require('./oauth.cjs');

const E = process.env;
const base = E.MCAT_BASE_URL;
const WIDTH = 4;
const agent = new http.Agent({ keepAlive: true, maxSockets: WIDTH });

function get(page) {
  const query = { country: E.MCAT_COUNTRY, page: String(page), pageSize: '50' };
  const path = '/1.2/user/locker';
  return new Promise((resolve, reject) => {
    http
      .get(`${base}${path}?${new URLSearchParams(query)}`, { agent, headers: { authorization: authorization('GET', base, path, query) } }, (r) => {
        const chunks = [];
        r.on('data', (d) => chunks.push(d));
        r.on('end', () => (r.statusCode === 200 ? resolve(Buffer.concat(chunks).toString()) : reject(new Error(`HTTP ${r.statusCode}`))));
      })
      .on('error', reject);
  });
}

function print(text) {
  const list = JSON.parse(text).locker.lockerReleases;
  let s = '';
  for (const release of list.lockerRelease) s += JSON.stringify(release) + '\n';
  return new Promise((resolve) => (process.stdout.write(s) ? resolve(list) : process.stdout.once('drain', () => resolve(list))));
}

(async () => {
  const first = await print(await get(1));
  const pages = Math.ceil(first.totalItems / first.pageSize);
  const inFlight = [];
  let next = 2;
  while (next <= pages && inFlight.length < WIDTH) inFlight.push(get(next++));
  while (inFlight.length) {
    const text = await inFlight.shift();
    if (next <= pages) inFlight.push(get(next++));
    await print(text);
  }
  agent.destroy();
})().catch((e) => {
  process.stderr.write(`floor: ${e.message}\n`);
  process.exit(1);
});

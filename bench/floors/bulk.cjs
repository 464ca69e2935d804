// The floor of `mcat playlist apply FILE` (replaces): the same edits in a bare Node script. Each
// edit's body JSON.stringified, its POST signed and sent, 64 in flight (mcat's most) over kept-alive
// connections, each answer JSON.parsed. Nothing validated, journaled, paced or retried.
'use strict';
const http = require('node:http');
const { URLSearchParams } = require('node:url');
const { readFileSync } = require('node:fs');
const { authorization } = require('./oauth.cjs');

const E = process.env;
const base = E.MCAT_BASE_URL;
const WIDTH = 64;
const agent = new http.Agent({ keepAlive: true, maxSockets: WIDTH });
const edits = readFileSync(process.argv[2], 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l));

function replace(e) {
  const path = `/1.2/playlists/${e.playlistId}`;
  const query = { country: E.MCAT_COUNTRY, userId: E.MCAT_USER_ID };
  const body = JSON.stringify({ name: e.name, status: e.status, visibility: e.visibility, tracks: e.tracks });
  const headers = { authorization: authorization('POST', base, path, query), 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}?${new URLSearchParams(query)}`, { method: 'POST', agent, headers }, (r) => {
      let text = '';
      r.setEncoding('utf8');
      r.on('data', (d) => (text += d));
      r.on('end', () => {
        if (r.statusCode !== 200) return reject(new Error(`HTTP ${r.statusCode}: ${text.slice(0, 200)}`));
        JSON.parse(text);
        resolve();
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

let next = 0;
async function lane() {
  while (next < edits.length) await replace(edits[next++]);
}
Promise.all(Array.from({ length: WIDTH }, lane))
  .then(() => agent.destroy())
  .catch((e) => {
    process.stderr.write(`floor: ${e.message}\n`);
    process.exit(1);
  });

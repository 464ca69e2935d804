// The floor of one catalogue read with undici, the HTTP client CONVENTIONS.md has mcat use (one
// keep-alive undici pool a process): the bench's http.get of the same URL, made by undici instead.
// It loads mcat's own trimmed undici bundle (dist/undici.cjs) through a V8 code cache of its own,
// with V8's baseline compiler alone for undici's WebAssembly parser (as mcat does), so undici costs
// it no more than it costs mcat: what is left between this and mcat's read is mcat's own.
// No signature (the URL carries the consumer key, as the http.get's does), no checks, no retries.
//   node bench/floors/read.cjs URL CACHE_FILE
'use strict';
require('node:v8').setFlagsFromString('--liftoff-only');
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { Script } = require('node:vm');
const { wrap } = require('node:module');

const [url, cacheFile] = process.argv.slice(2);
const file = join(__dirname, '../../dist/undici.cjs');
let cached;
try {
  cached = readFileSync(cacheFile);
} catch {
  cached = undefined;
}
const script = new Script(wrap(readFileSync(file, 'utf8')), { filename: file, cachedData: cached });
const undici = { exports: {} };
script.runInThisContext()(undici.exports, require, undici, file, join(__dirname, '../../dist'));
const { Agent, request } = undici.exports;

request(url, { dispatcher: new Agent(), method: 'GET' })
  .then(async (r) => {
    const body = await r.body.text();
    if (r.statusCode !== 200) throw new Error(`HTTP ${r.statusCode}`);
    if (cached === undefined || script.cachedDataRejected) writeFileSync(cacheFile, script.createCachedData());
    process.stdout.write(body, () => process.exit(0));
  })
  .catch((e) => {
    process.stderr.write(`floor: ${e.message}\n`);
    process.exit(1);
  });

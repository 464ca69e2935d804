// The bare floors' OAuth 1.0a (HMAC-SHA1, node:crypto): an Authorization header for one request,
// from the MCAT_* variables the bench sets. No checks, no retries: only what any client must do.
'use strict';
const { createHmac, randomBytes } = require('node:crypto');

const E = process.env;
const enc = (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
const key = `${enc(E.MCAT_CONSUMER_SECRET)}&${enc(E.MCAT_TOKEN_SECRET)}`;

/** The header for `method` of `base + path` with `query` (an object of strings), signed with the user's token. */
module.exports.authorization = function authorization(method, base, path, query) {
  const o = {
    oauth_consumer_key: E.MCAT_CONSUMER_KEY,
    oauth_nonce: randomBytes(16).toString('hex'),
    oauth_signature_method: 'HMAC-SHA1',
    oauth_timestamp: String(Math.floor(Date.now() / 1000)),
    oauth_token: E.MCAT_TOKEN,
    oauth_version: '1.0',
  };
  const all = { ...query, ...o };
  const params = Object.keys(all)
    .sort()
    .map((k) => `${enc(k)}=${enc(all[k])}`)
    .join('&');
  o.oauth_signature = createHmac('sha1', key).update(`${method}&${enc(base + path)}&${enc(params)}`).digest('base64');
  return 'OAuth ' + Object.keys(o).map((k) => `${k}="${enc(o[k])}"`).join(', ');
};

// HMAC-SHA1 (RFC 2104 over FIPS 180-4's SHA-1) in plain JavaScript, for the first signatures of a
// run. Loading node:crypto costs a short run more than everything else it signs with: its module
// and the ~30 internal modules it loads, and OpenSSL's first use, were 2.5-7 ms of a one-release
// read (~10 million instructions, 4% of the run) for one signature of ~300 bytes, which this
// computes in well under a millisecond. A long run (a bulk apply, a walk of hundreds of pages)
// switches to node:crypto's HMAC after its first signatures (oauth.ts).

/** The SHA-1 digest of `data` (any length). */
export function sha1(data: Uint8Array): Uint8Array {
  const bitLength = data.length * 8;
  // the message, a 0x80 byte, zeros, and the 64-bit length: a whole number of 64-byte blocks
  const padded = new Uint8Array(((data.length + 8) >> 6) * 64 + 64);
  padded.set(data);
  padded[data.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bitLength / 0x100000000));
  view.setUint32(padded.length - 4, bitLength >>> 0);
  let h0 = 0x67452301;
  let h1 = 0xefcdab89;
  let h2 = 0x98badcfe;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0;
  const w = new Int32Array(80);
  // (four loops of 20 rounds, no branch in a round: a short run executes this in V8's interpreter)
  for (let block = 0; block < padded.length; block += 64) {
    for (let i = 0, j = block; i < 16; i++, j += 4) w[i] = (padded[j] << 24) | (padded[j + 1] << 16) | (padded[j + 2] << 8) | padded[j + 3];
    for (let i = 16; i < 80; i++) {
      const x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16];
      w[i] = (x << 1) | (x >>> 31);
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    let t: number;
    for (let i = 0; i < 20; i++) {
      t = (((a << 5) | (a >>> 27)) + ((b & c) | (~b & d)) + e + 0x5a827999 + w[i]) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    for (let i = 20; i < 40; i++) {
      t = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + 0x6ed9eba1 + w[i]) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    for (let i = 40; i < 60; i++) {
      t = (((a << 5) | (a >>> 27)) + ((b & c) | (b & d) | (c & d)) + e + 0x8f1bbcdc + w[i]) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    for (let i = 60; i < 80; i++) {
      t = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + 0xca62c1d6 + w[i]) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  const out = new Uint8Array(20);
  const ov = new DataView(out.buffer);
  ov.setInt32(0, h0);
  ov.setInt32(4, h1);
  ov.setInt32(8, h2);
  ov.setInt32(12, h3);
  ov.setInt32(16, h4);
  return out;
}

/** HMAC-SHA1 of `message` under `key` (both UTF-8), base64: what an OAuth 1.0a signature is. */
export function hmacSha1Base64(message: string, key: string): string {
  let k: Uint8Array = Buffer.from(key, 'utf8');
  if (k.length > 64) k = sha1(k);
  const msg = Buffer.from(message, 'utf8');
  const inner = new Uint8Array(64 + msg.length);
  const outer = new Uint8Array(64 + 20);
  for (let i = 0; i < 64; i++) {
    const b = i < k.length ? k[i] : 0;
    inner[i] = b ^ 0x36;
    outer[i] = b ^ 0x5c;
  }
  inner.set(msg, 64);
  outer.set(sha1(inner), 64);
  return Buffer.from(sha1(outer)).toString('base64');
}

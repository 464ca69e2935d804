// Memory given back at once: a buffer that is garbage the moment its work is done (a walk's page,
// its NDJSON once written), detached rather than left until V8 next collects its wrapper.

/** ArrayBuffer.prototype.transfer: Node 22 and later (Node 20's V8 has none) */
const transfer = (ArrayBuffer.prototype as { transfer?: (this: ArrayBuffer, length?: number) => ArrayBuffer }).transfer;

/**
 * Gives back the memory of bytes no one needs any more, now: their ArrayBuffer detached
 * (transfer(0) frees its memory at once; without it, Node 20, a structuredClone that takes it
 * over leaves it to a young object, freed by the next scavenge). Until then such bytes are garbage
 * only when V8 next collects their wrapper on that thread, which in a walk may be tens of pages
 * later: the big locker's NDJSON pages (~250 kB each) so waited on the main thread, ~10 MB of its
 * walk's peak (Node 22: 140 → 127 MB).
 *
 * The caller vouches that nothing else reads them again (made for one write, and written; a page
 * read and done with). Only bytes that are the whole of their ArrayBuffer are released: never a
 * slice of Node's pool of small buffers (Buffer.allocUnsafe under Buffer.poolSize / 2: 4 kB on
 * Node 20 and 22, 32 kB on 24) or of anyone's larger buffer.
 */
export function releaseBytes(bytes: Uint8Array | ArrayBuffer): void {
  const buf = bytes instanceof ArrayBuffer ? bytes : bytes.buffer;
  if (!(buf instanceof ArrayBuffer) || buf.byteLength === 0) return;
  if (!(bytes instanceof ArrayBuffer) && (bytes.byteOffset !== 0 || bytes.byteLength !== buf.byteLength)) return;
  try {
    if (transfer) transfer.call(buf, 0);
    else structuredClone(buf, { transfer: [buf] });
  } catch {
    // one that cannot be detached (a WebAssembly memory's): left to the collector
  }
}

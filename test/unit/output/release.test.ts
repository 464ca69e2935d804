import { describe, expect, it } from 'vitest';
import { releaseBytes } from '../../../src/output/release';

describe('releaseBytes', () => {
  it('detaches the whole of an ArrayBuffer (its memory given back), given as bytes or as the buffer', () => {
    const a = Buffer.alloc(100_000, 1);
    releaseBytes(a);
    expect(a.buffer.byteLength).toBe(0);
    expect(a.length).toBe(0);
    const b = new ArrayBuffer(50_000);
    releaseBytes(b);
    expect(b.byteLength).toBe(0);
    // twice, or an empty one: nothing happens
    releaseBytes(a);
    releaseBytes(new ArrayBuffer(0));
  });

  it("never a slice of a buffer: Node's pool of small buffers, or part of a larger one", () => {
    const small = Buffer.from('{"a":1}\n');
    const neighbour = Buffer.from('{"b":2}\n');
    releaseBytes(small);
    expect(small.toString()).toBe('{"a":1}\n');
    expect(neighbour.toString()).toBe('{"b":2}\n');
    const whole = Buffer.alloc(100_000, 0x61);
    releaseBytes(whole.subarray(0, 10));
    releaseBytes(whole.subarray(10));
    expect(whole.buffer.byteLength).toBe(100_000);
    expect(whole.toString('latin1', 99_990)).toBe('a'.repeat(10));
  });

  it('leaves what cannot be detached to the collector (a WebAssembly memory), without a throw', () => {
    // (Node's types declare WebAssembly's types, not the global object)
    const Wasm = (globalThis as unknown as { WebAssembly: { Memory: new (o: { initial: number }) => { buffer: ArrayBuffer } } }).WebAssembly;
    const mem = new Wasm.Memory({ initial: 1 });
    expect(() => releaseBytes(new Uint8Array(mem.buffer))).not.toThrow();
    expect(mem.buffer.byteLength).toBe(65536);
  });
});

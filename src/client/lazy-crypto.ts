// node:crypto, loaded at its first use: a short run that signs one request never loads it
// (src/client/sha1.ts says why). process.getBuiltinModule (Node 20.16+, 22.3+) loads a built-in
// synchronously from an ES module's source, as the bundles' require() would.
type Crypto = typeof import('node:crypto');

let loaded: Crypto | undefined;

export function nodeCrypto(): Crypto {
  return (loaded ??= process.getBuiltinModule('node:crypto'));
}

// Writes types/sandbox.d.ts, the declarations of `mcat/sandbox`, from src/sandbox/public.ts alone
// (that file declares every type it exports). `node scripts/sandbox-types.mjs --check` fails when
// the committed file is out of date (test/unit/sandbox-api.test.ts runs the same comparison).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const SOURCE = 'src/sandbox/public.ts';
export const TARGET = 'types/sandbox.d.ts';

export function declarations() {
  const d = ts.transpileDeclaration(readFileSync(join(root, SOURCE), 'utf8'), { fileName: SOURCE, reportDiagnostics: true, compilerOptions: { strict: true } });
  if (d.diagnostics?.length) throw new Error(`${SOURCE}: ${d.diagnostics.map((x) => ts.flattenDiagnosticMessageText(x.messageText, ' ')).join('; ')}`);
  // the implementation's imports are not part of the declarations
  const body = d.outputText.replace(/^import .*\n/gm, '');
  return `// Generated from ${SOURCE} by scripts/sandbox-types.mjs: do not edit.\n${body}`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = declarations();
  if (process.argv.includes('--check')) {
    if (readFileSync(join(root, TARGET), 'utf8') !== text) {
      process.stderr.write(`${TARGET} is out of date: run node scripts/sandbox-types.mjs\n`);
      process.exit(1);
    }
  } else writeFileSync(join(root, TARGET), text);
}

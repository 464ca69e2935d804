// The layer rules live in eslint.config.js and run in `npm test` (npm run lint). This checks that
// the rules really refuse what docs/architecture.md forbids, and allow what it allows, so a typo in
// a regex cannot switch them off silently.
import { ESLint } from 'eslint';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: root });

async function importErrors(file: string, spec: string): Promise<string[]> {
  const [result] = await eslint.lintText(`import { x } from '${spec}';\nexport const y = x;\n`, { filePath: path.join(root, file) });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layer rules (eslint.config.js)', () => {
  const refused: [string, string][] = [
    ['src/client/http.ts', '../cli/main'],
    ['src/client/schemas/release.ts', '../../output/sink'],
    ['src/sandbox/server.ts', '../client/http'],
    ['src/sandbox/routes/locker.ts', '../../cli/context'],
    ['src/bulk/apply.ts', '../cli/context'],
    ['src/bulk/apply.ts', '../output/sink'],
    ['src/output/sink.ts', '../client/http'],
    ['src/output/sink.ts', '../cli/context'],
    ['src/config/store.ts', '../bulk/journal'],
    ['src/launcher/boot.ts', '../cli/main'],
    ['src/launcher/boot.ts', '../client/http'],
    ['src/launcher/process-context.ts', '../cli/lifecycle'],
    ['src/cli/main.ts', '../launcher/boot'],
  ];
  const allowed: [string, string][] = [
    ['src/client/http.ts', './errors'],
    ['src/client/schemas/release.ts', '../errors'],
    ['src/bulk/apply.ts', '../client/http'],
    ['src/output/sink.ts', '../client/errors'],
    ['src/config/store.ts', '../client/errors'],
    ['src/launcher/boot.ts', '../cli/argv'],
    ['src/launcher/process-context.ts', '../cli/run-context'],
    ['src/cli/main.ts', '../client/http'],
    ['src/cli/commands/locker/list.ts', '../../../sandbox/index'],
  ];

  it.each(refused)('%s may not import %s', async (file, spec) => {
    expect(await importErrors(file, spec)).toHaveLength(1);
  });

  it.each(allowed)('%s may import %s', async (file, spec) => {
    expect(await importErrors(file, spec)).toEqual([]);
  });
});

describe('commands reach the process only through their context (eslint.config.js)', () => {
  async function processErrors(file: string, code: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
    return result.messages.filter((m) => m.ruleId === 'no-restricted-globals').map((m) => m.message);
  }

  it.each([
    'export const e = process.env.HOME;',
    "export const t = process.stdout.isTTY;",
    'export function f() { process.exit(1); }',
    "export function g(fn: () => void) { process.on('SIGINT', fn); }",
  ])('a command may not write `%s`', async (code) => {
    expect(await processErrors('src/cli/commands/playlist/replace.ts', code)).toHaveLength(1);
  });

  it('its context, and code outside the commands, may', async () => {
    expect(await processErrors('src/cli/commands/playlist/replace.ts', 'export function f(ctx: { env: Record<string, string> }) { return ctx.env.HOME; }')).toEqual([]);
    expect(await processErrors('src/launcher/process-context.ts', 'export const e = process.env.HOME;')).toEqual([]);
  });
});

describe('no `any` in the typed layers (eslint.config.js)', () => {
  const anyErrors = async (file: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
    return result.messages.filter((m) => m.ruleId === '@typescript-eslint/no-explicit-any').length;
  };
  const withDisable = '// eslint-disable-next-line @typescript-eslint/no-explicit-any\nexport const y: any = 1;\n';

  const blockDisable = '/* eslint-disable @typescript-eslint/no-explicit-any */\nexport function f(x: any): any[] {\n  return [x];\n}\n';

  it.each([
    'src/bulk/apply.ts',
    'src/client/http.ts',
    'src/output/sink.ts',
    'src/config/store.ts',
    'src/sandbox/server.ts',
    'src/launcher/boot.ts',
    'src/cli/main.ts',
    'src/cli/views/locker.ts',
    'src/cli/commands/playlist/replace.ts',
  ])('%s: an `any` is an error, also under an eslint-disable comment', async (file) => {
    expect(await anyErrors(file, 'export const y: any = 1;\n')).toBe(1);
    expect(await anyErrors(file, withDisable)).toBe(1);
    expect(await anyErrors(file, blockDisable)).toBe(2);
  });

  it('a file added to src/ later is held to it too', async () => {
    expect(await anyErrors('src/newlayer/thing.ts', withDisable)).toBe(1);
  });

  it('tests may still use it (fixtures are loose by design)', async () => {
    expect(await anyErrors('test/unit/cli/views.test.ts', 'export const y: any = 1;\n')).toBe(0);
  });
});

// ESLint (flat config), run by `npm test` through `npm run lint`. Beyond typescript-eslint's
// recommended rules, it enforces the layers of docs/architecture.md: dependencies point one way
// (cli → client, output, config, bulk; bulk → client; client, sandbox → nothing of ours), and the
// launcher, which runs before anything is loaded, reaches only the CLI's pure argv reader.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const LAYERS = ['cli', 'client', 'output', 'config', 'bulk', 'sandbox', 'launcher'];

/** A rule that forbids relative imports into the given layers from files of one layer. */
function layer(name, forbidden) {
  const alt = forbidden.join('|');
  return {
    files: [`src/${name}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^(\\.\\./)+(${alt})(/|$)`,
              message: `src/${name} may not import from ${forbidden.join(', ')}: see docs/architecture.md`,
            },
          ],
        },
      ],
    },
  };
}

const others = (...keep) => LAYERS.filter((l) => !keep.includes(l));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'types/**', 'completions/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      // unused arguments are part of a signature (handlers, commander actions)
      '@typescript-eslint/no-unused-vars': ['error', { args: 'none', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // control characters in regexes are the point of the text cleaner and the parsers
      'no-control-regex': 'off',
    },
  },
  {
    // Typed end to end: no `any` in any layer, and no comment can switch the rule off in src/
    // (an inline eslint-disable is ignored, and said so). A value that is really not known (a parsed
    // body, a --fields path) is `unknown`, narrowed where it is read.
    files: ['src/**/*.ts'],
    linterOptions: { noInlineConfig: true },
    rules: { '@typescript-eslint/no-explicit-any': 'error' },
  },
  layer('client', others('client')),
  layer('sandbox', others('sandbox')),
  layer('bulk', others('bulk', 'client')),
  layer('cli', ['launcher']),
  {
    files: ['src/output/**/*.ts', 'src/config/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+client/(?!errors(\\.ts)?$)',
              message: 'output and config may import only client/errors from the client: see docs/architecture.md',
            },
            {
              regex: `^(\\.\\./)+(${others('output', 'config', 'client').join('|')})(/|$)`,
              message: 'output and config import nothing of cli, bulk, sandbox or launcher: see docs/architecture.md',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/launcher/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+cli/(?!(argv|run-context)(\\.ts)?$)',
              message: 'the launcher reaches only cli/argv (a pure reader of the command line) and cli/run-context (the types of a run\'s context): see docs/architecture.md',
            },
            {
              regex: `^(\\.\\./)+(${others('launcher', 'cli').join('|')})(/|$)`,
              message: 'the launcher imports nothing of ours but cli/argv: see docs/architecture.md',
            },
          ],
        },
      ],
    },
  },
  {
    // better-sqlite3's connections and statements are made only by src/sandbox/sqlite.ts, which
    // keeps them from the garbage collector: from Node 24.19 on, one collected outside JavaScript
    // aborts the process (see there)
    files: ['src/**/*.ts'],
    ignores: ['src/sandbox/sqlite.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          "ImportDeclaration[source.value='better-sqlite3'][importKind!='type']",
          "ImportExpression[source.value='better-sqlite3']",
          "CallExpression[callee.property.name=/^(prepare|pragma|iterate)$/]",
        ].map((selector) => ({ selector, message: 'SQLite connections and statements come from src/sandbox/sqlite.ts (openConnection, prepared, pragma): Node 24 aborts on one the garbage collector takes' })),
      ],
    },
  },
  {
    // a command touches the world only through its context (ctx.io, ctx.env, ctx.onInterrupt, …):
    // runCli runs it in tests with a fake one, so `process` here would reach past the test
    files: ['src/cli/commands/**/*.ts'],
    rules: {
      'no-restricted-globals': ['error', { name: 'process', message: "a command reaches the process only through its context (ctx.io, ctx.env, ctx.cwd, ctx.onInterrupt, ctx.exitNow)" }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**', 'scripts/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', performance: 'readonly', require: 'readonly', module: 'writable', __dirname: 'readonly', structuredClone: 'readonly', fetch: 'readonly', AbortController: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly', queueMicrotask: 'readonly', setImmediate: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);

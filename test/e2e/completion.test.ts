// Completions: generated from the command tree, kept in sync with completions/, and loaded in
// each real shell that is installed here to ask for completions of partial command lines.
import { execa } from 'execa';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcat, binPath } from '../helpers/mcat';
import { sandboxProfileEnv, startTestSandbox } from '../helpers/sandbox';

const root = path.resolve(__dirname, '../..');
// shells write their caches (.zcompdump, fish history) under HOME: keep them out of the repository
const shellHome = mkdtempSync(path.join(tmpdir(), 'mcat-shell-home-'));
const FILES: Record<string, string> = { bash: 'mcat.bash', zsh: '_mcat', fish: 'mcat.fish' };

function has(shell: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${shell}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('mcat completion', () => {
  for (const shell of Object.keys(FILES)) {
    it(`completions/${FILES[shell]} is what 'mcat completion ${shell}' prints`, async () => {
      const r = await mcat(['completion', shell]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout.length).toBeGreaterThan(500);
      const file = readFileSync(path.join(root, 'completions', FILES[shell]), 'utf8');
      expect(r.stdout, `completions/${FILES[shell]} is stale: run 'npm run completions'`).toBe(file);
    });
  }

  it('refuses an unknown shell with a usage error', async () => {
    const r = await mcat(['completion', 'powershell']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^mcat: unknown shell 'powershell'/);
  });
});

// Each case: the words typed so far (the last one is being completed) and what must be offered.
const CASES: { words: string[]; expect: string[]; not?: string[] }[] = [
  { words: ['loc'], expect: ['locker'] },
  { words: ['playlist', ''], expect: ['list', 'show', 'details', 'replace', 'apply', 'export', 'create'] },
  { words: ['group', ''], expect: ['replace', 'add', 'show'] },
  { words: ['locker', '--so'], expect: ['--sort'] },
  { words: ['locker', '--sort', ''], expect: ['purchaseDate:desc', 'artistName:asc', 'releaseTitle:desc'] },
  { words: ['release', 'batch', '-o', ''], expect: ['table', 'json', 'ndjson', 'csv', 'tsv', 'xml'] },
  { words: ['playlist', 'list', '--j'], expect: ['--jq', '--json'] },
  { words: ['locker', '-'], expect: ['-q', '--quiet', '--fields'] },
  { words: ['ver'], expect: ['version'] },
  { words: ['release', 'batch', '--usage-types', ''], expect: ['download', 'subscriptionstreaming', 'adsupportedstreaming'] },
  { words: ['release', 'batch', '--type', ''], expect: ['album', 'single'] },
  { words: ['artist', 'releases', '--type', ''], expect: ['album', 'single', 'video'] },
  { words: ['playlist', 'details', 'x', '--visibility', ''], expect: ['private', 'public'] },
  { words: ['playlist', 'replace', 'x', '--status', ''], expect: ['draft', 'published'] },
  { words: ['completion', ''], expect: ['bash', 'zsh', 'fish'] },
  // one word as zsh and fish see it (bash's own split at '=' and ':' is under 'words as bash splits them')
  { words: ['--output=js'], expect: ['--output=json'] },
  { words: ['locker', '--sort', 'purchaseDate:d'], expect: ['purchaseDate:desc'] },
  { words: ['release', 'batch', '--', '-'], expect: [], not: ['--ids-file', '--type'] },
  // commander's help command, and the words after it (main.ts: help GROUP COMMAND, help globals)
  { words: ['h'], expect: ['help'] },
  { words: ['help', ''], expect: ['playlist', 'release', 'globals'], not: ['help'] },
  { words: ['help', 'playlist', ''], expect: ['apply', 'replace'] },
  // mcat api's arguments in their places: the methods, then a path (no file name: cwd is the repository)
  { words: ['api', ''], expect: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'], not: ['package.json'] },
  { words: ['api', 'GET', ''], expect: [], not: ['package.json', 'GET'] },
  { words: ['completion', 'bash', ''], expect: [], not: ['zsh', 'package.json'] },
  // a comma-separated list: the items after the comma
  { words: ['release', 'batch', '--usage-types', 'download,'], expect: ['download,subscriptionstreaming', 'download,adsupportedstreaming'] },
  { words: ['release', 'batch', '--usage-types', 'download,sub'], expect: ['download,subscriptionstreaming'] },
  { words: ['release', 'batch', '--usage-types=download,sub'], expect: ['--usage-types=download,subscriptionstreaming'] },
  // a variadic option's later values are its values, not file names (playlist ids: below, with a server)
  { words: ['group', 'add', 'G', '--playlist', 'A', ''], expect: [], not: ['package.json'] },
  // -V is the program's own option: before the command only
  { words: ['--ver'], expect: ['--version', '--verbose'] },
  { words: ['version', '--ver'], expect: ['--verbose'], not: ['--version'] },
];

const bashCmd = (words: string[]) =>
  `source completions/mcat.bash; COMP_WORDS=(mcat ${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length}; _mcat; printf '%s\\n' "\${COMPREPLY[@]}"`;
// zsh runs the bash functions through bashcompinit, which calls them under `emulate sh`.
const zshCmd = (words: string[]) =>
  `source completions/_mcat >/dev/null 2>&1; (( $+_comps[mcat] )) || { echo 'not registered'; exit 9; }; emulate -L sh; setopt kshglob noshglob braceexpand; COMP_WORDS=(mcat ${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length}; _mcat; printf '%s\\n' "\${COMPREPLY[@]}"`;
const fishCmd = (words: string[]) => `source completions/mcat.fish; complete -C ${JSON.stringify(['mcat', ...words].join(' '))}`;

const SHELLS: { name: string; argv: (words: string[]) => string[] }[] = [
  { name: 'bash', argv: (w) => ['bash', '--norc', '--noprofile', '-c', bashCmd(w)] },
  { name: 'zsh', argv: (w) => ['zsh', '-f', '-c', zshCmd(w)] },
  { name: 'fish', argv: (w) => ['fish', '--no-config', '-c', fishCmd(w)] },
];

async function complete(shell: (typeof SHELLS)[number], words: string[], env: Record<string, string> = {}): Promise<string[]> {
  const [cmd, ...args] = shell.argv(words);
  const r = await execa(cmd, args, { cwd: root, reject: false, timeout: 15_000, env: { ...env, HOME: shellHome }, extendEnv: true });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout.split('\n').map((l) => l.split('\t')[0]).filter(Boolean);
}

for (const shell of SHELLS) {
  describe.skipIf(!has(shell.name))(`completions loaded in ${shell.name}`, () => {
    for (const c of CASES) {
      it(`mcat ${c.words.join(' ')}<TAB>`, async () => {
        const got = await complete(shell, c.words);
        for (const e of c.expect) expect(got).toContain(e);
        for (const n of c.not ?? []) expect(got).not.toContain(n);
      });
    }
  });
}

describe.skipIf(!has('bash'))('playlist ids complete from the current profile', () => {
  let sb: Awaited<ReturnType<typeof startTestSandbox>>;
  let env: Record<string, string>;
  beforeAll(async () => {
    sb = await startTestSandbox();
    env = { ...sandboxProfileEnv(sb), MCAT_CONFIG_DIR: path.join(sb.dataDir, 'conf') };
  });
  afterAll(() => sb?.close());

  it('offers the user playlist ids after `playlist show`', async () => {
    const cmd = `source completions/mcat.bash; COMP_WORDS=('${binPath}' playlist show ''); COMP_CWORD=3; _mcat; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const r = await execa('bash', ['--norc', '--noprofile', '-c', cmd], { cwd: root, env, reject: false, timeout: 15_000 });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual([...sb.info.examples.playlistIds].sort());
  });

  it('offers the ids whose playlist names contain what was typed (any case), or that start with it', async () => {
    const body = JSON.parse((await mcat(['playlist', 'list', '-o', 'json'], { env })).stdout);
    const target = body.playlists.playlist[1];
    const word = target.name.split(' ')[1].toLowerCase();
    const others = body.playlists.playlist.filter((p: { name: string }) => !p.name.toLowerCase().includes(word));
    expect(others.length).toBeGreaterThan(0);
    for (const typed of [word, word.toUpperCase(), target.id.slice(0, 5)]) {
      const cmd = `source completions/mcat.bash; COMP_WORDS=('${binPath}' playlist show '${typed}'); COMP_CWORD=3; _mcat; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const r = await execa('bash', ['--norc', '--noprofile', '-c', cmd], { cwd: root, env, reject: false, timeout: 15_000 });
      expect(r.stdout.split('\n').filter(Boolean), typed).toEqual([target.id]);
    }
  });

  it('offers them for each value of a variadic option: group add G --playlist ID <TAB> (bash, zsh, fish)', async () => {
    const ids = [...sb.info.examples.playlistIds].sort();
    const cmd = `source completions/mcat.bash; COMP_WORDS=('${binPath}' group add G --playlist ${ids[0]} ''); COMP_CWORD=6; _mcat; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const r = await execa('bash', ['--norc', '--noprofile', '-c', cmd], { cwd: root, env, reject: false, timeout: 15_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(ids);
    if (has('zsh')) {
      const z = `source completions/_mcat >/dev/null 2>&1; _describe() { print -rl -- "\${(@P)4}"; }; words=('${binPath}' group add G --playlist ${ids[0]} ${ids[1]} ''); CURRENT=8; _mcat_zsh`;
      const rz = await execa('zsh', ['-f', '-c', z], { cwd: root, env: { ...env, HOME: shellHome }, reject: false, timeout: 15_000 });
      expect(rz.exitCode, rz.stderr).toBe(0);
      expect(rz.stdout.split('\n').filter(Boolean).map((l) => l.split(':')[0]).sort()).toEqual(ids);
    }
    if (has('fish')) {
      const bin = mkdtempSync(path.join(tmpdir(), 'mcat-path-'));
      symlinkSync(binPath, path.join(bin, 'mcat'));
      const rf = await execa('fish', ['--no-config', '-c', `source completions/mcat.fish; complete -C "mcat group add G --playlist ${ids[0]} "`], {
        cwd: root,
        env: { ...env, HOME: shellHome, PATH: `${bin}:${process.env.PATH}` },
        reject: false,
        timeout: 15_000,
      });
      expect(rf.exitCode, rf.stderr).toBe(0);
      expect(rf.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]).sort()).toEqual(ids);
    }
  });

  it.skipIf(!has('zsh'))('zsh shows each id with its playlist name', async () => {
    // _describe stubbed to print what it was given: "id:description" entries
    const cmd = `source completions/_mcat >/dev/null 2>&1; _describe() { print -rl -- "\${(@P)4}"; }; words=('${binPath}' playlist show ''); CURRENT=4; _mcat_zsh`;
    const r = await execa('zsh', ['-f', '-c', cmd], { cwd: root, env: { ...env, HOME: shellHome }, reject: false, timeout: 15_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const body = JSON.parse((await mcat(['playlist', 'list', '-o', 'json'], { env })).stdout);
    expect(r.stdout.split('\n').filter(Boolean)).toEqual(body.playlists.playlist.map((p: { id: string; name: string }) => `${p.id}:${p.name}`));
  });

  it.skipIf(!has('zsh'))('zsh completes file names itself (quoted or escaped, as `my\\ f` or `\'my f`)', async () => {
    // bash's compgen reads the word as typed, quotes and all: zsh's _files knows its own quoting
    for (const [words, current] of [
      [`mcat release batch --ids-file 'my\\ f'`, 5],
      [`mcat locker download 1 -O "'my f"`, 6],
      [`mcat release batch --ids-file=my`, 4],
      [`mcat playlist apply "'my f"`, 4],
    ] as const) {
      const cmd = `source completions/_mcat >/dev/null 2>&1; _files() { print files; }; compset() { :; }; _bash_complete() { print bash; }; words=(${words}); CURRENT=${current}; _mcat_zsh`;
      const r = await execa('zsh', ['-f', '-c', cmd], { cwd: root, env: { ...env, HOME: shellHome }, reject: false, timeout: 15_000 });
      expect(r.stdout.trim(), words).toBe('files');
    }
  });

  it.skipIf(!has('fish'))('fish shows each id with its playlist name', async () => {
    const bin = mkdtempSync(path.join(tmpdir(), 'mcat-path-'));
    symlinkSync(binPath, path.join(bin, 'mcat'));
    const r = await execa('fish', ['--no-config', '-c', 'source completions/mcat.fish; complete -C "mcat playlist show "'], {
      cwd: root,
      env: { ...env, HOME: shellHome, PATH: `${bin}:${process.env.PATH}` },
      reject: false,
      timeout: 15_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const body = JSON.parse((await mcat(['playlist', 'list', '-o', 'json'], { env })).stdout);
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(body.playlists.playlist.map((p: { id: string; name: string }) => `${p.id}\t${p.name}`).sort());
  });

  it('asks the server and profile named earlier on the line (--base-url, --profile), not only the environment', async () => {
    const away = { ...env, MCAT_BASE_URL: 'http://127.0.0.1:9' };
    const ids = [...sb.info.examples.playlistIds].sort();
    const cmd = `source completions/mcat.bash; COMP_WORDS=('${binPath}' --base-url '${sb.baseUrl}' playlist show ''); COMP_CWORD=5; _mcat; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const r = await execa('bash', ['--norc', '--noprofile', '-c', cmd], { cwd: root, env: away, reject: false, timeout: 15_000 });
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(ids);
    // as typed in quotes: bash hands the word over with its quotes
    const quoted = `source completions/mcat.bash; COMP_WORDS=('${binPath}' --base-url "'${sb.baseUrl}'" playlist show ''); COMP_CWORD=5; _mcat; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const q = await execa('bash', ['--norc', '--noprofile', '-c', quoted], { cwd: root, env: away, reject: false, timeout: 15_000 });
    expect(q.stdout.split('\n').filter(Boolean).sort()).toEqual(ids);
    // and the other way round: the line's unreachable server wins over the environment's
    const cmd2 = `source completions/mcat.bash; COMP_WORDS=('${binPath}' playlist show --base-url=http://127.0.0.1:9 ''); COMP_CWORD=5; _mcat; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const r2 = await execa('bash', ['--norc', '--noprofile', '-c', cmd2], { cwd: root, env, reject: false, timeout: 15_000 });
    expect(r2.stdout.trim()).toBe('');
    if (has('fish')) {
      const bin = mkdtempSync(path.join(tmpdir(), 'mcat-path-'));
      symlinkSync(binPath, path.join(bin, 'mcat'));
      const f = await execa('fish', ['--no-config', '-c', `source completions/mcat.fish; complete -C "mcat --base-url ${sb.baseUrl} playlist show "`], {
        cwd: root,
        env: { ...away, HOME: shellHome, PATH: `${bin}:${process.env.PATH}` },
        reject: false,
        timeout: 15_000,
      });
      expect(f.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]).sort()).toEqual(ids);
    }
  });

  it('is silent and back within the 3-second bound when the server accepts and never answers', async () => {
    const { createServer } = await import('node:net');
    const held: import('node:net').Socket[] = [];
    const hang = createServer((s) => held.push(s));
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    const port = (hang.address() as { port: number }).port;
    try {
      for (const shell of ['bash', 'fish'].filter(has)) {
        const t0 = Date.now();
        const bin = mkdtempSync(path.join(tmpdir(), 'mcat-path-'));
        symlinkSync(binPath, path.join(bin, 'mcat'));
        const script =
          shell === 'bash'
            ? `source completions/mcat.bash; COMP_WORDS=(mcat playlist show ''); COMP_CWORD=3; _mcat; printf '%s\\n' "\${COMPREPLY[@]}"`
            : 'source completions/mcat.fish; complete -C "mcat playlist show "';
        const r = await execa(shell, shell === 'bash' ? ['--norc', '--noprofile', '-c', script] : ['--no-config', '-c', script], {
          cwd: root,
          env: { ...env, HOME: shellHome, MCAT_BASE_URL: `http://127.0.0.1:${port}`, PATH: `${bin}:${process.env.PATH}` },
          reject: false,
          timeout: 15_000,
        });
        expect(r.exitCode, shell).toBe(0);
        expect(r.stdout.trim(), shell).toBe('');
        expect(r.stderr, shell).toBe('');
        expect(Date.now() - t0, shell).toBeLessThan(3500);
        expect(held.length, shell).toBeGreaterThan(0);
      }
    } finally {
      for (const s of held) s.destroy();
      hang.close();
    }
  });

  it('offers no id that would act on the terminal or break a line (ids come from the network)', async () => {
    const body = JSON.parse((await mcat(['playlist', 'list', '-o', 'json'], { env })).stdout);
    const list = body.playlists.playlist;
    const good = list[0].id;
    list[1].id = 'evil\u001b]0;owned\u0007';
    list[2].id = 'two\nlines\tand a space';
    const { createServer } = await import('node:http');
    const fake = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    const port = (fake.address() as { port: number }).port;
    try {
      const r = await mcat(['__complete', 'playlist-ids'], { env: { ...env, MCAT_BASE_URL: `http://127.0.0.1:${port}` } });
      expect(r.exitCode).toBe(0);
      expect(r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0])).toEqual([good]);
      expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    } finally {
      fake.close();
    }
  });

  it.skipIf(!has('zsh'))('zsh: an id with a colon is offered whole (a colon separates id and description for _describe)', async () => {
    const body = JSON.parse((await mcat(['playlist', 'list', '-o', 'json'], { env })).stdout);
    body.playlists.playlist[0].id = 'abc:def';
    const { createServer } = await import('node:http');
    const fake = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    const port = (fake.address() as { port: number }).port;
    try {
      const cmd = `source completions/_mcat >/dev/null 2>&1; _describe() { print -rl -- "\${(@P)4}"; }; words=('${binPath}' playlist show ''); CURRENT=4; _mcat_zsh`;
      const r = await execa('zsh', ['-f', '-c', cmd], { cwd: root, env: { ...env, HOME: shellHome, MCAT_BASE_URL: `http://127.0.0.1:${port}` }, reject: false, timeout: 15_000 });
      expect(r.stdout.split('\n')[0]).toBe(`abc\\:def:${body.playlists.playlist[0].name}`);
    } finally {
      fake.close();
    }
  });

  it('is silent and quick when the API cannot be reached', async () => {
    const t0 = Date.now();
    const cmd = `source completions/mcat.bash; COMP_WORDS=('${binPath}' playlist show ''); COMP_CWORD=3; _mcat; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const r = await execa('bash', ['--norc', '--noprofile', '-c', cmd], {
      cwd: root,
      env: { ...env, MCAT_BASE_URL: 'http://127.0.0.1:9' },
      reject: false,
      timeout: 15_000,
    });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toBe('');
    expect(r.stderr).toBe('');
    expect(Date.now() - t0).toBeLessThan(5000);
  });
});

// What bash itself hands the function, as a real bash 5 at a terminal does (COMP_WORDBREAKS splits
// at '=' and ':', and only the text after the break is replaced): COMP_WORDS, COMP_LINE and COMP_POINT.
function bashAsTyped(line: string, words: string[], setup = ''): string {
  const arr = words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
  const l = `'${line.replace(/'/g, `'\\''`)}'`;
  return `${setup}
source completions/mcat.bash; COMP_WORDS=(${arr}); COMP_CWORD=${words.length - 1}; COMP_LINE=${l}; COMP_POINT=\${#COMP_LINE}; _mcat; printf '%s\\n' "\${COMPREPLY[@]}"`;
}

describe.skipIf(!has('bash'))('bash: words as bash splits them', () => {
  const run = async (script: string, cwd = root) => {
    const r = await execa('bash', ['--norc', '--noprofile', '-c', script.replace('source completions/', `source ${root}/completions/`)], { cwd, reject: false, timeout: 15_000, env: { HOME: shellHome } });
    expect(r.exitCode, r.stderr).toBe(0);
    return r.stdout.split('\n').filter(Boolean);
  };

  it('--output=js<TAB> offers json (bash replaces only what follows the =)', async () => {
    expect(await run(bashAsTyped('mcat --output=js', ['mcat', '--output', '=', 'js']))).toEqual(['json']);
    expect((await run(bashAsTyped('mcat --output=', ['mcat', '--output', '=']))).sort()).toEqual(['csv', 'json', 'ndjson', 'table', 'tsv', 'xml']);
    expect(await run(bashAsTyped('mcat playlist list --auth-in=q', ['mcat', 'playlist', 'list', '--auth-in', '=', 'q']))).toEqual(['query']);
  });

  it('a value with a colon: locker --sort purchaseDate:d<TAB> offers desc', async () => {
    expect(await run(bashAsTyped('mcat locker --sort purchaseDate:d', ['mcat', 'locker', '--sort', 'purchaseDate', ':', 'd']))).toEqual(['desc']);
    expect((await run(bashAsTyped('mcat locker --sort artistName:', ['mcat', 'locker', '--sort', 'artistName', ':']))).sort()).toEqual(['asc', 'desc']);
  });

  it('an option=value earlier on the line does not take the next word: --output=json loc<TAB>', async () => {
    expect(await run(bashAsTyped('mcat --output=json loc', ['mcat', '--output', '=', 'json', 'loc']))).toEqual(['locker']);
  });

  it('file names with spaces are one completion each, under set -u, failglob and nullglob', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mcat-compl-files-'));
    writeFileSync(path.join(dir, 'my ids.txt'), '1\n');
    writeFileSync(path.join(dir, 'a*b.txt'), '1\n');
    for (const setup of ['', 'set -u', 'shopt -s failglob', 'shopt -s nullglob']) {
      const got = await run(bashAsTyped('mcat release batch --ids-file my', ['mcat', 'release', 'batch', '--ids-file', 'my'], setup), dir);
      expect(got, setup).toEqual(['my ids.txt']);
      const all = await run(bashAsTyped('mcat locker download 1 -O ', ['mcat', 'locker', 'download', '1', '-O', ''], setup), dir);
      expect(all.sort(), setup).toEqual(['a*b.txt', 'my ids.txt']);
    }
  });
});

describe('profile names complete from the config file (-p, --profile, profile use)', () => {
  const conf = mkdtempSync(path.join(tmpdir(), 'mcat-compl-conf-'));
  writeFileSync(path.join(conf, 'config.json'), JSON.stringify({ current: 'work', profiles: { work: { baseUrl: 'http://127.0.0.1:9' }, 'cust-10002': { baseUrl: 'http://127.0.0.1:9' } } }), { mode: 0o600 });
  const env = { MCAT_CONFIG_DIR: conf, HOME: shellHome };
  const bin = mkdtempSync(path.join(tmpdir(), 'mcat-path-'));
  symlinkSync(binPath, path.join(bin, 'mcat'));
  const PATH = `${bin}:${process.env.PATH}`;
  const lines = [
    ['-p', ''],
    ['--profile', 'cu'],
    ['playlist', 'list', '--profile', ''],
    ['profile', 'use', ''],
  ];
  const want = (w: string[]) => ['cust-10002', 'sandbox', 'work'].filter((n) => n.startsWith(w[w.length - 1]));

  it.skipIf(!has('bash'))('in bash', async () => {
    for (const w of lines) {
      const cmd = `source completions/mcat.bash; COMP_WORDS=(mcat ${w.map((x) => `'${x}'`).join(' ')}); COMP_CWORD=${w.length}; _mcat; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const r = await execa('bash', ['--norc', '--noprofile', '-c', cmd], { cwd: root, env: { ...env, PATH }, reject: false, timeout: 15_000 });
      expect(r.stdout.split('\n').filter(Boolean).sort(), w.join(' ')).toEqual(want(w));
    }
  });

  it.skipIf(!has('fish'))('in fish', async () => {
    for (const w of lines) {
      const r = await execa('fish', ['--no-config', '-c', `source completions/mcat.fish; complete -C ${JSON.stringify(['mcat', ...w].join(' '))}`], { cwd: root, env: { ...env, PATH }, reject: false, timeout: 15_000 });
      expect(r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]).sort(), w.join(' ')).toEqual(want(w));
    }
  });
});

describe.skipIf(!has('bash'))('bash: a shell with set -e and set -u keeps running', () => {
  // errexit in an interactive shell: a completion function whose command fails would close the terminal
  const lines: string[][] = [
    ['playlist', 'show', ''],
    ['-o', ''],
    ['-p', ''],
    ['locker', '--sort', 'x'],
    ['release', 'batch', '--ids-file', 'zz-none'],
    ['group', 'add', 'g', '--playlist', ''],
    ['nosuch', ''],
    [''],
  ];
  it('completing any line under set -eu returns to the shell', async () => {
    for (const w of lines) {
      const cmd = `set -eu; source completions/mcat.bash; COMP_WORDS=(mcat ${w.map((x) => `'${x}'`).join(' ')}); COMP_CWORD=${w.length}; _mcat; echo survived`;
      const r = await execa('bash', ['--norc', '--noprofile', '-c', cmd], {
        cwd: root,
        env: { HOME: shellHome, MCAT_BASE_URL: 'http://127.0.0.1:9', MCAT_CONSUMER_KEY: 'k', MCAT_CONSUMER_SECRET: 's', MCAT_COUNTRY: 'GB' },
        reject: false,
        timeout: 15_000,
      });
      expect(r.stdout.trim(), `${w.join(' ')}: ${r.stderr}`).toBe('survived');
      expect(r.stderr, w.join(' ')).toBe('');
    }
  });
});

describe.skipIf(!has('zsh'))('zsh: _mcat installed in $fpath, as the README says', () => {
  it('completes at the first TAB of a real interactive zsh (zpty), with no prompt redrawn', async () => {
    const dot = mkdtempSync(path.join(tmpdir(), 'mcat-zdot-'));
    const fp = path.join(dot, 'fp');
    const bin = path.join(dot, 'bin');
    mkdirSync(fp);
    mkdirSync(bin);
    copyFileSync(path.join(root, 'completions/_mcat'), path.join(fp, '_mcat'));
    symlinkSync(binPath, path.join(bin, 'mcat'));
    writeFileSync(path.join(dot, '.zshrc'), `PS1='$ '\nPATH=${bin}:$PATH\nfpath=(${fp} $fpath)\nautoload -U compinit && compinit -u\n`);
    const driver = path.join(dot, 'drive.zsh');
    writeFileSync(
      driver,
      [
        'zmodload zsh/zpty',
        `zpty z "ZDOTDIR=${dot} HOME=${dot} zsh -i"`,
        'sleep 1',
        "zpty -w -n z $'mcat pla\\t'",
        'sleep 2',
        "zpty -w -n z $'\\x15'",
        "out=''",
        'while zpty -r -t z chunk; do out+=$chunk; done',
        'zpty -d z',
        'print -r -- "$out"',
      ].join('\n'),
    );
    const r = await execa('zsh', ['-f', driver], { reject: false, timeout: 20_000, env: { HOME: dot } });
    const screen = r.stdout.replace(/\x1b\[[0-9;?]*[a-zA-Z=>]|\x1b[=>]/g, '');
    expect(screen).toContain('mcat playlist');
    expect(screen).not.toContain('\x07');
  });
});

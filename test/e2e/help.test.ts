// `mcat help <command path>`: the same page as `<command path> --help`, however deep the path; a
// word that names no command is a usage error with a suggestion, as it is without `help`.
import { describe, expect, it } from 'vitest';
import { mcat } from '../helpers/mcat';

describe('mcat help COMMAND...', () => {
  it('shows the help of the command the words name, as --help does (a subcommand too)', async () => {
    for (const path of [['playlist', 'apply'], ['release', 'batch'], ['locker', 'download'], ['group', 'add'], ['playlist'], ['completion']]) {
      const [viaHelp, viaFlag] = await Promise.all([mcat(['help', ...path]), mcat([...path, '--help'])]);
      expect(viaHelp.exitCode, path.join(' ')).toBe(0);
      expect(viaHelp.stderr, path.join(' ')).toBe('');
      expect(viaHelp.stdout, path.join(' ')).toBe(viaFlag.stdout);
      expect(viaHelp.stdout, path.join(' ')).toMatch(new RegExp(`^Usage: mcat ${path.join(' ')} `));
    }
  });

  it('a word that names no command: one line with the suggestion, a hint, exit 2, nothing on stdout', async () => {
    for (const [args, line, hint] of [
      [['help', 'plalist'], "mcat: unknown command 'plalist' (did you mean playlist?)", "hint: run 'mcat --help' for usage"],
      [['help', 'playlist', 'aply'], "mcat: unknown command 'aply' (did you mean apply?)", "hint: run 'mcat playlist --help' for usage"],
      [['help', 'frobnicate'], "mcat: unknown command 'frobnicate'", "hint: run 'mcat --help' for usage"],
    ] as const) {
      const r = await mcat([...args]);
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stdout, args.join(' ')).toBe('');
      expect(r.stderr.trimEnd().split('\n'), args.join(' ')).toEqual([line, hint]);
    }
  });
});

describe('a misspelt required option', () => {
  it('is named with a suggestion, not reported as the required option missing (exit 2)', async () => {
    for (const [args, line] of [
      [['group', 'add', 'g1', '--playlis', 'x'], "mcat: unknown option '--playlis' (did you mean --playlist?)"],
      [['playlist', 'replace', 'ad0ed2b4b45b8d81945103f4', '--frm', 'x.json'], "mcat: unknown option '--frm' (did you mean --from?)"],
    ] as const) {
      const r = await mcat([...args]);
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n'), args.join(' ')).toEqual([line, expect.stringMatching(/^hint: run 'mcat .*--help' for usage$/)]);
    }
  });

  it('a required option really missing is still said so', async () => {
    const r = await mcat(['group', 'add', 'g1']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^mcat: required option '--playlist <ids\.\.\.>' not specified$/m);
  });
});

describe('mcat help globals', () => {
  it('with words after it is still the global options (not "unknown command globals")', async () => {
    const [a, b] = await Promise.all([mcat(['help', 'globals']), mcat(['help', 'globals', 'extra'])]);
    expect(b.exitCode).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    expect(a.stdout).toMatch(/^Global options/);
  });
});

describe('help fits the width tables fit', () => {
  /** The lines wider than `w` that are not the usage line, an example (indented command lines are never broken) or one unbreakable word. */
  const tooWide = (text: string, w: number) =>
    text.split('\n').filter((l) => l.length > w && !l.startsWith('Usage: ') && !/^ {2,}(mcat |printf |\{)/.test(l) && /\s/.test(l.trim()));

  it('a list with no space in it (a --faults spec, the ops of an edit) is broken after its commas or bars, not run past the edge', async () => {
    for (const [args, w] of [[['sandbox', 'start', '--help'], 100], [['sandbox', 'start', '--help'], 80], [['playlist', 'apply', '--help'], 60]] as [string[], number][]) {
      const r = await mcat(args, { env: { COLUMNS: String(w) } });
      expect(r.exitCode).toBe(0);
      const wide = r.stdout.split('\n').filter((l) => l.length > w && !l.startsWith('Usage: ') && !/^ {2}mcat /.test(l));
      expect(wide, `${args.join(' ')} at ${w}`).toEqual([]);
    }
    // the pieces run on: the spec reads back whole, nothing added between them
    const r = await mcat(['sandbox', 'start', '--help'], { env: { COLUMNS: '80' } });
    expect(r.stdout.replace(/,\n +/g, ',')).toContain('latency=200ms,error=0.1,429=0.05,retryafter=2,reset=0.02,truncate=0.02,slow=0.02');
  });

  it('COLUMNS, also when stdout is no terminal; narrower than a column of descriptions, each description goes under its term', async () => {
    const lines = [['--help'], ['playlist', 'apply', '--help'], ['locker', '--help'], ['help', 'globals'], ['group', '--help']];
    for (const w of [40, 50, 60]) {
      const runs = await Promise.all(lines.map((args) => mcat(args, { env: { COLUMNS: String(w) } })));
      runs.forEach((r, i) => {
        const what = `${lines[i].join(' ')} at COLUMNS=${w}`;
        expect(r.exitCode, what).toBe(0);
        expect(tooWide(r.stdout, w), what).toEqual([]);
      });
    }
    // at 50 the top-level page has no room for its 29-column terms and a 40-column text beside them
    const top = await mcat(['--help'], { env: { COLUMNS: '50' } });
    expect(top.stdout).toMatch(/\n {2}-o, --output <format>\n {6}output format: table, json, ndjson, csv,\n {6}tsv, xml/);
    expect(top.stdout).toMatch(/\nCommands:\n {2}release\n {6}catalogue releases/);
    const sub = await mcat(['release', '--help'], { env: { COLUMNS: '50' } });
    for (const l of sub.stdout.split('\n')) expect(l.length, l).toBeLessThanOrEqual(50);
    // COLUMNS unset and no terminal: 80, as before
    const plain = await mcat(['playlist', 'apply', '--help'], { env: { COLUMNS: undefined } });
    expect(tooWide(plain.stdout, 80)).toEqual([]);
    expect(plain.stdout).toMatch(/\n {2}--concurrency <n> {8}edits in flight at most/);
  });
});

describe('-V and --version: the program\'s own option, before any command word only', () => {
  it('before the command (or alone) print the version, exit 0; `mcat version` too', async () => {
    const version = /^\d+\.\d+\.\d+\n$/;
    for (const args of [['-V'], ['--version'], ['-q', '-V'], ['-o', 'json', '--version'], ['-qV'], ['--json', '-V'], ['-V', 'release', 'batch', 'x'], ['version']]) {
      const r = await mcat(args);
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stdout, args.join(' ')).toMatch(version);
      expect(r.stderr, args.join(' ')).toBe('');
    }
  });

  it('after a command word: an unknown option (exit 2, nothing sent), or the value of the option before it', async () => {
    for (const [args, line] of [
      [['api', 'GET', '/1.2/release/tracks', '-f', 'releaseId=100001', '-V'], "mcat: unknown option '-V'"],
      [['version', '-V'], "mcat: unknown option '-V'"],
      [['version', '--version'], "mcat: unknown option '--version'"],
      // the value of --usage-types, refused as no usage type
      [['release', 'batch', '100001', '--usage-types', '-V'], /^mcat: unknown usage type '-v'/i],
    ] as const) {
      const r = await mcat([...args]);
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stdout, args.join(' ')).toBe('');
      expect(r.stderr.split('\n')[0], args.join(' ')).toMatch(line);
    }
  });

  it('is listed in the top-level help, both as the launcher renders it and as commander does', async () => {
    for (const args of [['--help'], ['-o', '-V']]) {
      const r = await mcat(args);
      expect(r.exitCode, args.join(' ')).toBe(0);
      expect(r.stdout, args.join(' ')).toMatch(/^ {2}-V, --version +print the version$/m);
    }
  });
});

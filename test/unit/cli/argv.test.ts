import { describe, expect, it } from 'vitest';
import { asksForHelp, asksForVersion, bundleFor, CATALOGUE_GROUPS, commandWords, GLOBAL_OPTIONS_WITH_VALUE, topHelp } from '../../../src/cli/argv';
import type { Command } from 'commander';
import { buildProgram } from '../../../src/cli/main';

describe('commandWords', () => {
  it('reads the leading command words', () => {
    expect(commandWords(['release', 'batch', '100001'])).toEqual(['release', 'batch']);
    expect(commandWords(['locker'])).toEqual(['locker']);
    expect(commandWords([])).toEqual([]);
    expect(commandWords(['release', 'batch'], 1)).toEqual(['release']);
  });

  it('skips global options and the values they take', () => {
    expect(commandWords(['-o', 'json', 'release', 'batch', '1'])).toEqual(['release', 'batch']);
    expect(commandWords(['--country', 'gb', '--verbose', 'artist', 'releases', '1001'])).toEqual(['artist', 'releases']);
    expect(commandWords(['-p', 'work', '--no-color', 'playlist', 'list'])).toEqual(['playlist', 'list']);
  });

  it('stops at an id, a path, an upper-case word or --', () => {
    expect(commandWords(['release', '100001'])).toEqual(['release']);
    expect(commandWords(['api', 'GET', '/1.2/user/playlists'])).toEqual(['api']);
    expect(commandWords(['--', 'release', 'batch'])).toEqual([]);
    expect(commandWords(['../x', 'release'])).toEqual([]);
  });

  it('reads the hidden completion command', () => {
    expect(commandWords(['__complete', 'playlist-ids'])).toEqual(['__complete', 'playlist-ids']);
  });

  it('tells help from work', () => {
    expect(asksForHelp(['--help'])).toBe(true);
    expect(asksForHelp(['release', 'batch', '-h'])).toBe(true);
    expect(asksForHelp(['help', 'release'])).toBe(true);
    expect(asksForHelp(['release', 'batch', '1'])).toBe(false);
  });
});

describe('topHelp', () => {
  it('--help, -h and help ask for the top-level help; no command at all is commander\'s help for a missing command', () => {
    for (const args of [['--help'], ['-h'], ['help'], ['-h', '--help'], ['-o', 'json', '--help'], ['--no-color', '-h'], ['--json', '--help'], ['--json', 'id', '-h'], ['--auth-in', 'query', '-h'], ['--timeout', '5', '-h', '-q']])
      expect(topHelp(args), args.join(' ')).toBe('asked');
    // commander takes the word after an option that needs a value as its value, --help included
    for (const args of [[], ['-q'], ['-o', 'json'], ['-o', '--help'], ['--json'], ['--verbose', '--no-pager']]) expect(topHelp(args), args.join(' ')).toBe('missing');
  });

  it('leaves to commander a word, an unknown or combined option, a refused or missing value, -V and --', () => {
    for (const args of [
      ['help', 'release'],
      ['help', '--help'],
      ['-q', 'help'],
      ['release', '--help'],
      ['--help', 'relase'],
      ['--bogus', '--help'],
      ['-qh'],
      ['--output=json', '--help'],
      ['--auth-in', 'bogus', '--help'],
      ['--help', '-o'],
      ['-V', '--help'],
      ['--', '--help'],
      ['--json', '-5', '--help'],
    ])
      expect(topHelp(args), args.join(' ')).toBeUndefined();
  });
});

describe('asksForVersion', () => {
  it('is true for -V or --version where commander would read it as the program\'s own option, before any command word', () => {
    for (const args of [['-V'], ['--version'], ['-q', '-V'], ['-qV'], ['-vqV'], ['-o', 'json', '-V'], ['-ojson', '-V'], ['--output=json', '--version'], ['--json', '-V'], ['--json', 'id', '-V'], ['-h', '-V'], ['-V', 'release', 'batch', '1'], ['--version', 'x'], ['--no-color', '-V']])
      expect(asksForVersion(args), args.join(' ')).toBe(true);
  });

  it('is false after a command word, as an option\'s value, after an unknown option or --', () => {
    for (const args of [
      [],
      ['version'],
      ['version', '-V'],
      ['api', 'GET', '/1.2/release/tracks', '-f', 'releaseId=100001', '-V'],
      ['playlist', 'replace', 'x', '--name', '-V'],
      ['help', '-V'],
      // the values of global options that take one
      ['-o', '-V'],
      ['-p', '--version'],
      ['-oV'],
      ['--json', '-5', 'release', '-V'],
      ['--bogus', '-V'],
      ['-qx', '-V'],
      ['--', '-V'],
      ['-', '-V'],
    ])
      expect(asksForVersion(args), args.join(' ')).toBe(false);
  });
});

describe('bundleFor', () => {
  it('runs dist/help.cjs for the top-level help, and only for it', () => {
    for (const args of [['--help'], ['-h'], ['help'], [], ['-o', 'json', '--help'], ['--no-color', '-h'], ['-o', 'json']]) expect(bundleFor(args), args.join(' ')).toBe('help.cjs');
  });

  it('runs dist/catalogue.cjs for a line whose first command word is a catalogue group, as registry.ts reads the words', () => {
    for (const args of [
      ['release', 'batch', '1'],
      ['release', '--help'],
      ['release'],
      ['release', 'bogus'],
      ['-o', 'json', 'artist', 'releases', '1'],
      ['--bogus', 'track', 'metadata', '1'],
      ['track', 'metadata', '--help'],
    ])
      expect(bundleFor(args), args.join(' ')).toBe('catalogue.cjs');
    expect(CATALOGUE_GROUPS).toEqual(['release', 'artist', 'track']);
  });

  it('runs dist/mcat.cjs for everything else', () => {
    for (const args of [
      ['help', 'release'],
      ['help', 'globals'],
      ['locker'],
      ['--bogus'],
      ['--help', 'relase'],
      ['relase', 'batch', '1'],
      // -o takes 'release' as its value: the command word is 'batch'
      ['-o', 'release', 'batch'],
      ['--version', 'x'],
      ['playlist', 'list'],
    ])
      expect(bundleFor(args), args.join(' ')).toBe('mcat.cjs');
  });
});

describe('GLOBAL_OPTIONS_WITH_VALUE', () => {
  it('lists exactly the global options of the program that take a value', async () => {
    const program = await buildProgram([]);
    const expected = program.options
      .filter((o) => o.required || o.optional)
      .flatMap((o) => [o.short, o.long].filter((f): f is string => Boolean(f)));
    expect([...GLOBAL_OPTIONS_WITH_VALUE].sort()).toEqual(expected.sort());
  });
});

/** The commands of a program, with their sub-commands: 'release[batch,tracks]'. */
const tree = (program: Command) => program.commands.map((c) => (c.commands.length ? `${c.name()}[${c.commands.map((s) => s.name()).join(',')}]` : c.name()));

describe('buildProgram: a command line loads only what it needs (the registry)', () => {
  it('a run has only the group it names, with only the command it names', async () => {
    expect(tree(await buildProgram(['release', 'batch', '1']))).toEqual(['release[batch]']);
    expect(tree(await buildProgram(['-o', 'json', 'playlist', 'replace', 'x']))).toEqual(['playlist[replace]']);
    // a group's default (the locker listing) needs none of the group's other commands
    expect(tree(await buildProgram(['-o', 'json', 'locker', '--all']))).toEqual(['locker']);
    expect(tree(await buildProgram(['__complete', 'playlist-ids']))).toEqual(['__complete']);
  });

  it("a group's help, or a word that is not one of its commands, has all of that group's commands", async () => {
    for (const args of [['playlist', '--help'], ['playlist'], ['playlist', 'lst'], ['help', 'playlist'], ['locker', '--sort', 'find']]) {
      const group = args.includes('locker') ? 'locker' : 'playlist';
      const t = tree(await buildProgram(args));
      expect(t.find((x) => x.startsWith(group + '[')), args.join(' ')).toBeDefined();
      expect(t.filter((x) => x.includes('[')), args.join(' ')).toHaveLength(1);
    }
  });

  it('a word that is no group (misspelt) has everything, for the suggestion and the hint', async () => {
    expect(tree(await buildProgram(['relase', 'batch']))).toEqual(tree(await buildProgram()));
  });

  it("`mcat --help`, `mcat help` and no command have every group and no group's commands", async () => {
    const full = await buildProgram();
    expect(full.commands.map((c) => c.name())).toEqual(['release', 'artist', 'track', 'locker', 'playlist', 'group', 'auth', 'profile', 'sandbox', 'api', 'version', 'completion', '__complete']);
    for (const args of [[], ['--help'], ['-h'], ['help']]) {
      const shallow = await buildProgram(args);
      expect(tree(shallow), args.join(' ')).toEqual(full.commands.map((c) => c.name()));
      expect(shallow.helpInformation()).toBe(full.helpInformation());
    }
    // a group's own options and arguments are in its line of the help
    const help = (await buildProgram(['--help'])).helpInformation();
    const line = (name: string) => help.split('\n').find((l) => l.trimStart().startsWith(name + ' '));
    expect(line('locker')).toMatch(/^\s+locker \[options\]/);
    expect(line('api')).toMatch(/^\s+api \[options\] <method> <path>/);
    // a sub-command's help still has it all
    const batch = (await buildProgram(['release', 'batch', '--help'])).commands[0].commands.find((c) => c.name() === 'batch')!;
    expect(batch.options.map((o) => o.long)).toContain('--ids-file');
  });
});

import { describe, expect, it } from 'vitest';
import { asksForHelp, commandWords, GLOBAL_OPTIONS_WITH_VALUE } from '../../../src/cli/argv';
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

describe('GLOBAL_OPTIONS_WITH_VALUE', () => {
  it('lists exactly the global options of the program that take a value', () => {
    const program = buildProgram();
    const expected = program.options
      .filter((o) => o.required || o.optional)
      .flatMap((o) => [o.short, o.long].filter((f): f is string => Boolean(f)));
    expect([...GLOBAL_OPTIONS_WITH_VALUE].sort()).toEqual(expected.sort());
  });
});

describe('buildProgram', () => {
  it('registers only the group a command line names', () => {
    const names = (args?: string[]) => buildProgram(args).commands.map((c) => c.name());
    expect(names(['release', 'batch', '1'])).toEqual(['release']);
    expect(names(['-o', 'json', 'locker'])).toEqual(['locker']);
    expect(names(['__complete', 'playlist-ids'])).toEqual(['completion', '__complete']);
  });

  it('registers every group for help, completion, no command and a misspelt one', () => {
    const all = buildProgram().commands.map((c) => c.name());
    expect(all).toEqual(expect.arrayContaining(['release', 'artist', 'track', 'locker', 'playlist', 'group', 'auth', 'profile', 'sandbox', 'api', 'completion']));
    for (const args of [[], ['--help'], ['help'], ['completion', 'bash'], ['relase', 'batch']]) {
      expect(buildProgram(args).commands.map((c) => c.name())).toEqual(all);
    }
  });

  it("the top-level --help builds the groups without their sub-commands (it lists groups only), and prints the same help", () => {
    const full = buildProgram();
    expect(full.commands.find((c) => c.name() === 'release')!.commands.length).toBeGreaterThan(0);
    for (const flag of ['--help', '-h']) {
      const shallow = buildProgram([flag]);
      for (const group of shallow.commands) expect(group.commands.map((c) => c.name()), group.name()).toEqual([]);
      expect(shallow.helpInformation()).toBe(full.helpInformation());
    }
    // a group's own options and arguments are in its line of the help
    const line = (name: string) => buildProgram(['--help']).helpInformation().split('\n').find((l) => l.trimStart().startsWith(name + ' '));
    expect(line('locker')).toMatch(/^\s+locker \[options\]/);
    expect(line('api')).toMatch(/^\s+api \[options\] <method> <path>/);
    // a sub-command's help still has it all
    const batch = buildProgram(['release', 'batch', '--help']).commands[0].commands.find((c) => c.name() === 'batch')!;
    expect(batch.options.map((o) => o.long)).toContain('--ids-file');
  });
});

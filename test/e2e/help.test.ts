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

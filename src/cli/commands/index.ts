// Every command group of mcat. Command files are light: commander definitions only;
// each action imports what it needs when it runs.
import type { Command } from 'commander';
import { registerRelease } from './release';
import { registerArtist } from './artist';
import { registerTrack } from './track';
import { registerSandbox } from './sandbox';
import { registerAuth } from './auth';
import { registerProfile } from './profile';
import { registerLocker } from './locker';
import { registerPlaylist } from './playlist';
import { registerGroup } from './group';
import { registerApi } from './api';
import { registerCompletion } from './completion';
import { registerVersion } from './version';

const GROUPS: Record<string, (program: Command) => void> = {
  release: registerRelease,
  artist: registerArtist,
  track: registerTrack,
  locker: registerLocker,
  playlist: registerPlaylist,
  group: registerGroup,
  auth: registerAuth,
  profile: registerProfile,
  sandbox: registerSandbox,
  api: registerApi,
  version: registerVersion,
  // completion scripts are generated from the whole tree: `completion` registers every group
  __complete: registerCompletion,
};

/**
 * Registers the command groups. With `only` naming a group, just that one: a run needs only its own
 * command's definitions (commander builds each option object eagerly). Anything else (no word, help,
 * completion, a misspelt command that wants suggestions) gets them all.
 */
export function registerCommands(program: Command, only?: string, shallow = false): void {
  const one = only !== undefined && Object.hasOwn(GROUPS, only) ? GROUPS[only] : undefined;
  if (one) return one(program);
  const target = shallow ? groupsOnly(program) : program;
  for (const register of Object.values(GROUPS)) register(target);
}

/** A chain of calls that does nothing: what a group's sub-commands become in groupsOnly. */
const nothing: Command = new Proxy(function () {} as unknown as Command, {
  get: (_, key) => (key === 'then' ? undefined : () => nothing),
});

/**
 * The program as the groups' register functions see it when only the top-level help is wanted:
 * each group is made (with its own options and arguments, which the help shows) but its
 * sub-commands are not (commander builds every option eagerly; a top-level help lists groups only).
 */
function groupsOnly(program: Command): Command {
  return new Proxy(program, {
    get(target, key, receiver) {
      if (key !== 'command') return Reflect.get(target, key, receiver);
      return (...args: Parameters<Command['command']>) => {
        const group = target.command(...args);
        return new Proxy(group, {
          get: (g, k, r) => (k === 'command' ? () => nothing : Reflect.get(g, k, r)),
        });
      };
    },
  });
}

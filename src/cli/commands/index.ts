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
export function registerCommands(program: Command, only?: string): void {
  const one = only !== undefined && Object.hasOwn(GROUPS, only) ? GROUPS[only] : undefined;
  if (one) return one(program);
  for (const register of Object.values(GROUPS)) register(program);
}

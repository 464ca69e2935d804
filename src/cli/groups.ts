// Every command group, and the program's own description: plain definitions (a group's index
// imports none of its commands), from which the registry builds the commander program
// (registry.ts, main.ts) and the launcher renders the top-level help without one (top-help.ts).
import type { GroupDef } from './command';
import api from './commands/api/index';
import artist from './commands/artist/index';
import auth from './commands/auth/index';
import completion, { completeGroup } from './commands/completion/index';
import group from './commands/group/index';
import locker from './commands/locker/index';
import playlist from './commands/playlist/index';
import profile from './commands/profile/index';
import release from './commands/release/index';
import sandbox from './commands/sandbox/index';
import track from './commands/track/index';
import version from './commands/version/index';

/** Every group, in the order `mcat --help` lists them. */
export const GROUPS: readonly GroupDef[] = [release, artist, track, locker, playlist, group, auth, profile, sandbox, api, version, completion, completeGroup];

/** The program's line under its usage in `mcat --help`. */
export const PROGRAM_DESCRIPTION = 'Music Catalogue, Locker and Playlist API from the terminal (sandbox built in)';

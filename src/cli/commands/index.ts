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

export function registerCommands(program: Command): void {
  registerRelease(program);
  registerArtist(program);
  registerTrack(program);
  registerLocker(program);
  registerPlaylist(program);
  registerGroup(program);
  registerAuth(program);
  registerProfile(program);
  registerSandbox(program);
  registerApi(program);
  registerCompletion(program);
}

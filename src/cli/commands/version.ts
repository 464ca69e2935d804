import type { Command } from 'commander';
import { print } from '../../output/streams';

declare const __MCAT_VERSION__: string;

/** `mcat version`, as `mcat --version` (and gh's `gh version`). */
export function registerVersion(program: Command): void {
  program
    .command('version')
    .description('print the version (as --version)')
    .addHelpText('after', '\nExamples:\n  mcat version')
    .action(async () => {
      await print(`${typeof __MCAT_VERSION__ === 'string' ? __MCAT_VERSION__ : '0.0.0-dev'}\n`);
    });
}

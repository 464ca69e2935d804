// `mcat profile use NAME`: the current profile ('sandbox': back to the built-in one).
import { UsageError } from '../../errors';
import { ENV, envValue, SANDBOX_PROFILE } from '../../../config/settings';
import { openStore } from '../../../config/store';
import { defineCommand, type CommandContext } from '../../command';
import { notice, say } from '../../context';
import { interruptSignal } from '../../lifecycle';

export default defineCommand<{ name: string }>({
  name: 'use',
  description: "make a stored profile current ('sandbox' goes back to the built-in sandbox)",
  arguments: [{ name: '<name>', description: 'profile name', complete: '@profile' }],
  examples: ['mcat profile use cust-10002', 'mcat profile use sandbox'],
  run: runProfileUse,
});

async function runProfileUse({ name }: { name: string }, ctx: CommandContext): Promise<void> {
  const store = await openStore(ctx.env, { signal: interruptSignal });
  const snap = store.snapshot();
  if (!Object.hasOwn(snap.profiles, name) && name !== SANDBOX_PROFILE) {
    const names = Object.keys(snap.profiles).sort();
    throw new UsageError(
      `no profile named '${name}'`,
      `profiles: ${[SANDBOX_PROFILE, ...names].join(', ')}; create it with 'mcat auth login --profile ${name}'`,
    );
  }
  await store.use(name);
  if (store.current() === undefined) notice(`mcat: no current profile: the built-in ${SANDBOX_PROFILE} is used`);
  else notice(`mcat: '${name}' is now the current profile`);
  const env = envValue(ctx.env, ENV.profile);
  if (env !== undefined && env !== name) say(`mcat: note: ${ENV.profile}=${env} is set and takes precedence in this shell`);
}

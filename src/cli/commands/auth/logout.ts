// `mcat auth logout`: a stored profile and its credentials removed.
import { UsageError } from '../../errors';
import { ENV, envValue, SANDBOX_PROFILE } from '../../../config/settings';
import { openStore, type ProfileStore } from '../../../config/store';
import { defineCommand, type CommandContext } from '../../command';
import { notice } from '../../context';
import { interruptSignal } from '../../lifecycle';

export default defineCommand<unknown>({
  name: 'logout',
  description: 'remove a stored profile and its credentials (default: the profile in use); the sandbox is used if it was current',
  examples: ['mcat auth logout --profile catalogue'],
  run: runLogout,
});

async function runLogout(_flags: unknown, ctx: CommandContext): Promise<void> {
  const g = ctx.globals;
  const store: ProfileStore = await openStore(ctx.env, { signal: interruptSignal });
  const snap = store.snapshot();
  const name = g.profile?.trim() || envValue(ctx.env, ENV.profile)?.trim() || snap.current;
  if (!name || (name === SANDBOX_PROFILE && !Object.hasOwn(snap.profiles, name))) {
    throw new UsageError('the built-in sandbox profile has no stored credentials to remove', "name a profile with --profile; see 'mcat profile list'");
  }
  const wasCurrent = snap.current === name;
  if (!(await store.removeProfile(name))) {
    const names = Object.keys(snap.profiles).sort();
    throw new UsageError(`no profile named '${name}'`, names.length ? `stored profiles: ${names.join(', ')}` : 'no profile is stored');
  }
  notice(`mcat: removed profile '${name}' and its credentials from ${store.path}`);
  if (wasCurrent) notice(`mcat: no current profile: the built-in ${SANDBOX_PROFILE} is used`);
}


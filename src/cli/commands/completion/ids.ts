// `mcat __complete playlist-ids` and `mcat __complete profiles`: called by the completion scripts when the
// shell asks for playlist ids or profile names; bounded and silent. One "id<TAB>name" line each: zsh and fish show the name beside the id, bash matches it.
import { print } from '../../../output/streams';
import { clean } from '../../../output/clean';
import { defineCommand } from '../../command';

export default defineCommand<{ what: string }>({
  name: 'ids',
  description: 'playlist ids for the completion scripts',
  groupDefault: true,
  async run({ what }, ctx) {
    if (what === 'profiles') return profileNames(ctx.env);
    if (what !== 'playlist-ids') return;
    const timer = setTimeout(() => ctx.exitNow(0), 2500);
    timer.unref();
    const lines: string[] = [];
    try {
      const s = await ctx.session();
      const { listPlaylistsUnread } = await import('../../../client/playlists');
      const { paginateItems } = await import('../../../client/paging');
      const playlists = paginateItems<{ id: string; name?: unknown }>(
        (page, signal) => listPlaylistsUnread(s.client, { userId: s.userId, country: s.country, page, pageSize: 200, signal }),
        { listPath: 'playlists.playlist', pagingPath: 'playlists', pageSize: 200, limit: 1000, what: 'the playlists', signal: AbortSignal.timeout(2000) },
      );
      for await (const p of playlists) if (completableId(p.id)) lines.push(`${p.id}\t${completionText(p.name)}`);
    } catch {
      // completion must never print an error into the user's shell: what was read is offered
    }
    clearTimeout(timer);
    if (lines.length) await print(lines.join('\n') + '\n');
  },
});

/** `mcat __complete profiles`: the built-in sandbox and every stored profile, one a line; nothing when the config cannot be read. */
async function profileNames(env: NodeJS.ProcessEnv): Promise<void> {
  let names: string[] = [];
  try {
    const { openStore } = await import('../../../config/store');
    names = Object.keys((await openStore(env)).snapshot().profiles);
  } catch {
    // completion must never print an error into the user's shell
  }
  const { SANDBOX_PROFILE } = await import('../../../config/settings');
  const safe = names.filter((n) => n !== SANDBOX_PROFILE && completableId(n)).sort();
  await print([SANDBOX_PROFILE, ...safe].join('\n') + '\n');
}

/**
 * An id the shell can offer as it came: a string with no white space or control character (one
 * would break the line format or act on the terminal when the shell lists it); others are left out.
 */
export function completableId(id: unknown): id is string {
  return typeof id === 'string' && id.length > 0 && !/[\s\u0000-\u001f\u007f-\u009f]/.test(id);
}

/** A playlist name as a completion description: one line, no tab (the separator), control characters as visible escapes, not too long. */
export function completionText(name: unknown): string {
  const one = clean(typeof name === 'string' ? name : '', 'line').replace(/\t/g, ' ').trim();
  return [...one].length > 60 ? [...one].slice(0, 59).join('') + '…' : one;
}

// `mcat locker find TEXT`: the releases and tracks of the whole locker whose title, artist,
// release or ISRC contain the text, in any case and with or without accents.
import { UsageError } from '../../errors';
import { about, notice, ofUser, output, outputFormat } from '../../context';
import { InterruptedError } from '../../errors';
import { interrupted } from '../../lifecycle';
import { setPath } from '../../../client/paging';
import { userSession, USER_TOKEN_OPTION, type UserTokenFlags } from '../../user-token';
import { defineCommand, type CommandContext } from '../../command';

const LIST = 'locker.lockerReleases.lockerRelease';
const PAGING = 'locker.lockerReleases';

type FindFlags = UserTokenFlags & { text: string };

export default defineCommand<FindFlags>({
  name: 'find',
  description: 'releases and tracks whose title, artist, release or ISRC contains TEXT (any case, any accents), across the whole locker',
  arguments: [{ name: '<text>', description: 'the text to look for' }],
  options: [USER_TOKEN_OPTION],
  help: 'A release that matches is shown whole; otherwise only its tracks that match.',
  examples: ['mcat locker find summer', 'mcat locker find GB-55T-22-00101 -o json'],
  json: async () => (await import('../../views/locker')).lockerView,
  run: runFind,
});

async function runFind(flags: FindFlags, ctx: CommandContext): Promise<void> {
  const { walkLocker } = await import('../../locker-walk');
  const { fold, lockerMatcher } = await import('../../views/locker-support');
  const { lockerView } = await import('../../views/locker');
  const query = flags.text.trim();
  if (!fold(query).trim()) throw new UsageError('locker find needs some text to look for', 'e.g. mcat locker find summer');
  const format = outputFormat(ctx);
  if (format === 'xml') throw new UsageError("locker find prints table, json, ndjson, csv or tsv: -o xml is the API's XML as received", "use 'mcat locker -o xml' for that");
  const s = await userSession(ctx, flags);
  const match = lockerMatcher(query);
  const signal = ctx.signal;
  const out = await output(ctx);
  out.heading(about(s, `Locker of ${ofUser(s.userId)}, matching "${query}"`)); // whose data, from where (tables only)
  let searched = 0;
  let found = 0;
  async function* pages(): AsyncGenerator<unknown> {
    for await (const p of walkLocker(s, { signal })) {
      searched += p.releases.length;
      const hits = p.releases.map(match).filter(Boolean);
      found += hits.length;
      setPath(p.body, LIST, hits);
      yield p.body;
    }
  }
  const { mergePages } = await import('../../../output/json');
  await out.streamPages(pages(), lockerView, { merge: (bodies) => mergePages(bodies, { listPath: LIST, pagingPath: PAGING }), listPath: LIST });
  if (interrupted()) throw new InterruptedError(`interrupted after ${searched} release${searched === 1 ? '' : 's'}: the matches shown are not all of them`);
  const whose = s.userId ? `user ${s.userId}'s locker` : 'the locker';
  // summaries, as the listings' --limit line: -q (MCAT_QUIET=1) leaves a script's stderr empty
  if (found === 0) notice(`mcat: nothing in ${whose} matches "${query}" (${searched.toLocaleString('en-GB')} release${searched === 1 ? '' : 's'} searched)`);
  else if (format !== 'table') notice(`mcat: ${found} release${found === 1 ? '' : 's'} in ${whose} ${found === 1 ? 'matches' : 'match'} "${query}" (${searched.toLocaleString('en-GB')} searched)`);
}

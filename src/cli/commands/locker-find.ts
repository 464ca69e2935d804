// `mcat locker find TEXT`: the releases and tracks of the whole locker whose title, artist,
// release or ISRC contain the text, in any case and with or without accents.
import type { Command } from 'commander';
import { UsageError } from '../errors';
import { output, outputFormat, say } from '../context';
import { InterruptedError } from '../errors';
import { interruptSignal, interrupted } from '../lifecycle';
import { setPath } from '../../client/paging';
import { walkLocker } from '../locker-walk';
import { userSession, type UserTokenFlags } from '../user-token';
import { lockerView } from '../views/locker';
import { fold, lockerMatcher } from '../views/locker-support';

const LIST = 'locker.lockerReleases.lockerRelease';
const PAGING = 'locker.lockerReleases';

export async function runFind(cmd: Command, text: string, flags: UserTokenFlags): Promise<void> {
  const query = text.trim();
  if (!fold(query).trim()) throw new UsageError('locker find needs some text to look for', 'e.g. mcat locker find summer');
  const format = outputFormat(cmd);
  if (format === 'xml') throw new UsageError("locker find prints table, json, ndjson or csv: -o xml is the API's XML as received", "use 'mcat locker -o xml' for that");
  const s = await userSession(cmd, flags);
  const match = lockerMatcher(query);
  const signal = interruptSignal();
  const out = await output(cmd);
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
  const { mergePages } = await import('../../output/json');
  await out.streamPages(pages(), lockerView, { merge: (bodies) => mergePages(bodies, { listPath: LIST, pagingPath: PAGING }) });
  if (interrupted()) throw new InterruptedError(`interrupted after ${searched} releases: the matches shown are not all of them`);
  const whose = s.userId ? `user ${s.userId}'s locker` : 'the locker';
  if (found === 0) say(`mcat: nothing in ${whose} matches "${query}" (${searched.toLocaleString('en-GB')} releases searched)`);
  else if (format !== 'table') say(`mcat: ${found} release${found === 1 ? '' : 's'} in ${whose} match "${query}" (${searched.toLocaleString('en-GB')} searched)`);
}

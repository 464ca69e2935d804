// The work behind `mcat profile list|use`. Keys are masked; secrets are never read out.
import type { Command } from 'commander';
import { UsageError } from '../errors';
import { globalsOf, notice, output, outputFormat, say } from '../context';
import { print } from '../../output/streams';
import { ENV, envValue, SANDBOX_PROFILE } from '../../config/settings';
import { openStore } from '../../config/store';
import { profileCsv, profileRows, profileView } from '../views/profiles';

export async function runProfileList(cmd: Command): Promise<void> {
  const format = outputFormat(cmd);
  if (format === 'xml') throw new UsageError('profile list prints table, json, ndjson or csv, not xml');
  const store = await openStore();
  const rows = profileRows(store.snapshot());
  if (globalsOf(cmd).verbose) say(`mcat: ${rows.length} profile(s), config file ${store.path}`);
  if (format === 'table') {
    const out = await output(cmd);
    out.heading(`Profiles in ${store.path}`);
    await out.document({ profiles: rows }, profileView);
    return;
  }
  if (format === 'json') return (await import('../json-out')).printJson(cmd, rows);
  let out: string;
  if (format === 'ndjson') out = rows.map((r) => JSON.stringify(r) + '\n').join('');
  else if (format === 'tsv') throw new UsageError('profile list prints table, json, ndjson or csv, not tsv');
  else out = profileCsv(rows);
  await print(out);
}

export async function runProfileUse(cmd: Command, name: string): Promise<void> {
  void cmd;
  const store = await openStore();
  const snap = store.snapshot();
  if (!Object.hasOwn(snap.profiles, name) && name !== SANDBOX_PROFILE) {
    const names = Object.keys(snap.profiles).sort();
    throw new UsageError(
      `no profile named '${name}'`,
      `profiles: ${[SANDBOX_PROFILE, ...names].join(', ')}; create it with 'mcat auth login --profile ${name}'`,
    );
  }
  store.use(name);
  if (store.current() === undefined) notice(`mcat: no current profile: the built-in ${SANDBOX_PROFILE} is used`);
  else notice(`mcat: '${name}' is now the current profile`);
  const env = envValue(process.env, ENV.profile);
  if (env !== undefined && env !== name) say(`mcat: note: ${ENV.profile}=${env} is set and takes precedence in this shell`);
}

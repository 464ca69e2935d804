// Every example in every --help runs as written against the default sandbox: the examples are
// read from the command tree's help, then run in bash (mcat on PATH; those that only read a few at
// a time, the others in order), in a folder holding the files they name, with the variables the
// auth examples name set to the sandbox's values. Each must exit 0; a foreground `sandbox start`
// must come up and stop on Ctrl-C.
import { execa } from 'execa';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main';
import { binPath, hasCommand, mcatEnv, tempHome } from '../helpers/mcat';
import { mapLimit } from '../helpers/pool';
import { startTestSandbox } from '../helpers/sandbox';

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;
let sb: Sandbox;

/** [command path, its full help text] for every visible command. */
async function helpTexts(): Promise<[string, string][]> {
  const out: [string, string][] = [];
  const walk = (cmd: Command, path: string[]) => {
    for (const sub of cmd.commands) {
      if ((sub as unknown as { _hidden?: boolean })._hidden) continue;
      let text = '';
      sub.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
      sub.outputHelp();
      out.push([[...path, sub.name()].join(' '), text]);
      walk(sub, [...path, sub.name()]);
    }
  };
  walk(await buildProgram(), []);
  return out;
}

/** The indented lines under an "Examples" heading, up to the next blank line. */
export function examplesOf(help: string): string[] {
  const lines = help.split('\n');
  // the heading may be wrapped to the help's width: it ends at the first line ending in ':'
  let at = lines.findIndex((l) => /^Examples\b/.test(l));
  if (at < 0) return [];
  while (at < lines.length && !/:$/.test(lines[at].trim())) at++;
  const out: string[] = [];
  for (const l of lines.slice(at + 1)) {
    if (!l.startsWith('  ')) break;
    out.push(l.trim());
  }
  return out;
}

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb?.close();
});

describe('help examples', () => {
  it('are found: every command that does something has some, all of them mcat command lines', async () => {
    const texts = await helpTexts();
    const leaves = texts.filter(([path]) => !texts.some(([other]) => other.startsWith(path + ' ')) || path === 'locker');
    const without = leaves.filter(([, text]) => examplesOf(text).length === 0).map(([path]) => path);
    expect(without).toEqual([]);
    for (const [path, text] of texts) {
      for (const ex of examplesOf(text)) expect(ex, path).toMatch(/\bmcat /);
      // ids that were never in the sandbox (the old examples' 1001-style release ids, 5f0c… playlists)
      expect(text, path).not.toMatch(/5f0c1a2b|3000001|\brelease (batch|tracks) 100[0-9]\b/);
      // not on a terminal the help is 80 columns wide: its prose too (examples are command lines)
      const wide = text.split('\n').filter((l) => !/^\s/.test(l) && l.length > 80);
      expect(wide, path).toEqual([]);
    }
  });

  it.skipIf(!hasCommand('jq'))('run as written against the default sandbox, each exiting 0 (those that change something in order)', { timeout: 240_000 }, async () => {
    const work = mkdtempSync(join(tmpdir(), 'mcat-examples-'));
    const bin = join(work, '.bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'mcat'), `#!/bin/sh\nexec '${process.execPath}' '${binPath}' "$@"\n`);
    chmodSync(join(bin, 'mcat'), 0o755);
    const ex = sb.info.examples;
    const [p1, p2] = ex.playlistIds;
    // the files the examples name
    writeFileSync(join(work, 'ids.txt'), `${ex.releaseIds[0]}\n${ex.releaseIds[1]}\n`);
    writeFileSync(join(work, 'tracks.csv'), `trackId,trackTitle\n${ex.trackIds[0]},First\n${ex.trackIds[1]},\n`);
    writeFileSync(join(work, 'notes.txt'), 'Songs for the way in.\n');
    writeFileSync(join(work, 'body.json'), JSON.stringify({ name: 'Morning Commute', tracks: [{ trackId: String(ex.trackIds[0]) }] }));
    writeFileSync(
      join(work, 'edits.ndjson'),
      [{ op: 'details', playlistId: p1, description: 'edited by a help example' }, { op: 'group-add', groupId: ex.groupId, playlistIds: [p2] }]
        .map((e) => JSON.stringify(e))
        .join('\n') + '\n',
    );
    const consumer = sb.info.consumers.find((c) => c.countries.length > 1)!;
    const big = sb.info.users.find((u) => u.userId === ex.bigLockerUser)!;
    const env = {
      ...(mcatEnv({ sandboxDir: sb.dataDir, home: tempHome() }) as Record<string, string>),
      PATH: `${bin}:${process.env.PATH}`,
      BASE_URL: sb.baseUrl,
      KEY: consumer.key,
      SECRET: consumer.secret,
      TOKEN: big.token,
      TOKEN_SECRET: big.tokenSecret,
      USER_TOKEN: big.token,
      USER_TOKEN_SECRET: big.tokenSecret,
    };

    const ran: string[] = [];
    const runExample = async ([path, example]: [string, string]) => {
      if (/^mcat sandbox start\b/.test(example)) {
        const child = execa('bash', ['-c', example], { cwd: work, env, extendEnv: true, reject: false, stdin: 'ignore' });
        let err = '';
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(() => reject(new Error(`${example}: not listening within 20 s: ${err}`)), 20_000);
          child.stderr!.on('data', (d: Buffer) => {
            err += d.toString();
            if (err.includes('Press Ctrl-C')) {
              clearTimeout(t);
              resolve();
            }
          });
        });
        child.kill('SIGINT');
        const r = await child;
        expect(r.exitCode, `${path}: ${example} (signal ${r.signal})\n${err}`).toBe(0);
      } else {
        const r = await execa('bash', ['-o', 'pipefail', '-c', example], { cwd: work, env, extendEnv: true, reject: false, stdin: 'ignore', timeout: 60_000 });
        expect(r.exitCode, `${path}: ${example}\n${r.stderr}`).toBe(0);
      }
      ran.push(example);
    };
    const inOrder = async (list: [string, string][]) => {
      for (const e of list) await runExample(e);
    };
    const all = (await helpTexts()).flatMap(([path, text]) => examplesOf(text).map((ex): [string, string] => [path, ex]));
    // The catalogue and locker examples only read (a download writes a file of its own): they
    // run a few at a time, beside the playlist and group examples, which run in order (one's
    // output is the next one's input). The rest then run one at a time, in order, alone: auth
    // and profile examples change the default profile every example uses, sandbox start and
    // reset the server they talk to.
    const reads = all.filter(([path]) => /^(release|artist|track|locker)\b/.test(path));
    const edits = all.filter(([path]) => /^(playlist|group)\b/.test(path));
    const rest = all.filter((e) => !reads.includes(e) && !edits.includes(e));
    await Promise.all([mapLimit(reads, 3, runExample), inOrder(edits)]);
    await inOrder(rest);
    expect(ran.length).toBeGreaterThan(40);
  });
});

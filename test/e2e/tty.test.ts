// The table views in a real pseudo-terminal (util-linux `script`): table by default, colour on,
// markers that also survive --no-color; and through a pipe: no colour codes at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcat } from '../helpers/mcat';
import { hasScript, mcatLine, pty } from '../helpers/pty';
import { startTestSandbox } from '../helpers/sandbox';

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;
let sb: Sandbox;

const ESC = /\u001b\[[0-9;]*m/;

/** Runs mcat with stdin, stdout and stderr on a pseudo-terminal 120 wide. */
async function inPty(args: string[], env: Record<string, string | undefined> = {}): Promise<string> {
  const r = await pty(mcatLine(args), { sandboxDir: sb.dataDir, env });
  expect(r.exitCode, r.out).toBe(0);
  return r.out;
}

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb?.close();
});

describe.skipIf(!hasScript())('in a pseudo-terminal', () => {
  it('locker: a coloured table by default, markers on unavailable and used-up entries, a summary line', async () => {
    const out = await inPty(['locker', '--all']);
    expect(out).toMatch(ESC);
    expect(out).not.toMatch(/^\s*[{[]/m); // not JSON
    expect(out).toContain('✗');
    expect(out).toMatch(/releases?.*tracks?.*unavailable.*no downloads left/i);
  });

  it('locker --no-color: no colour codes, the markers stay', async () => {
    const out = await inPty(['locker', '--all', '--no-color']);
    expect(out).not.toMatch(ESC);
    expect(out).toContain('✗');
  });

  it('NO_COLOR in the environment turns colour off too', async () => {
    const out = await inPty(['playlist', 'list'], { NO_COLOR: '1' });
    expect(out).not.toMatch(ESC);
    expect(out).toContain(sb.info.examples.playlistIds[0].slice(0, 8));
  });

  it('locker -o xml is pretty-printed on a terminal', async () => {
    const out = await inPty(['locker', '-o', 'xml', '--page-size', '2']);
    // the sandbox's root carries the real service's xmlns:xsi and schema location too
    expect(out).toMatch(/<response [^>]*status="ok" version="1\.2"/);
    expect(out).toMatch(/\n\s+<lockerRelease/);
  });

  it('-o xml pages merged (--limit) are pretty-printed as one document on a terminal', async () => {
    const out = await inPty(['artist', 'releases', '1001', '--limit', '3', '--page-size', '2', '-o', 'xml']);
    expect(out.match(/^ {4}<release id="\d+">$/gm)).toHaveLength(3);
    expect(out).toMatch(/^ {2}<\/releases>\n<\/response>$/m);
  });

  it('release batch and track metadata render for a person', async () => {
    const batch = await inPty(['release', 'batch', ...sb.info.examples.releaseIds.slice(0, 3).map(String)]);
    expect(batch).toMatch(ESC);
    const sheet = await inPty(['track', 'metadata', String(sb.info.examples.trackIds[0])]);
    expect(sheet).toMatch(/bpm/i);
  });
});

describe('through a pipe', () => {
  it('-o table has the same markers and no colour codes', async () => {
    const r = await mcat(['locker', '--all', '-o', 'table'], { sandboxDir: sb.dataDir });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).not.toMatch(ESC);
    expect(r.stderr).not.toMatch(ESC);
    expect(r.stdout).toContain('✗');
  });

  it('defaults to JSON', async () => {
    const r = await mcat(['locker'], { sandboxDir: sb.dataDir });
    expect(r.exitCode).toBe(0);
    expect(() => JSON.parse(r.stdout)).not.toThrow();
  });
});

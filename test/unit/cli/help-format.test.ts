// The help's one layout (src/cli/help-format.ts) against commander's own renderer (Help.formatHelp),
// for the program and every group and command of it, at widths from narrow to wide; and the
// top-level page made from the registry's definitions (src/cli/top-help.ts, dist/help.cjs) against
// what commander prints for the same lines, read from a terminal or not.
import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { Command, Help } from 'commander';
import { buildProgram, runCli } from '../../../src/cli/main';
import { commandPage, formatHelp, stackedAt, type HelpPage } from '../../../src/cli/help-format';
import { optionDescription, runCli as runTopHelp, topHelpPage } from '../../../src/cli/top-help';
import { makeOption } from '../../../src/cli/registry';
import type { OptionDef } from '../../../src/cli/command';
import { topHelp } from '../../../src/cli/argv';
import { GLOBAL_OPTIONS, optionNames, takesValue } from '../../../src/cli/global-options';
import type { CliContext } from '../../../src/cli/run-context';

const WIDTHS = [20, 39, 40, 50, 60, 80, 100, 120, 200];

/** The widest term of a page's lists. */
function termWidthOf(page: HelpPage): number {
  return Math.max(0, ...[...page.arguments, ...page.options, ...page.commands].map((i) => i.term.length));
}

/** Whether a page is laid out stacked at `width`: too narrow for a column of descriptions beside its terms. */
function stacked(page: HelpPage, width: number): boolean {
  return stackedAt(termWidthOf(page), width) && [...page.arguments, ...page.options, ...page.commands].some((i) => i.description);
}

function pageOf(cmd: Command, width: number): HelpPage {
  const helper = cmd.createHelp();
  helper.prepareContext({ helpWidth: width });
  return commandPage(cmd, helper);
}

/** Every command of a program, the program first. */
function everyCommand(cmd: Command): Command[] {
  return [cmd, ...cmd.commands.flatMap(everyCommand)];
}

/** commander's own page for `cmd` at `width` (the stock formatHelp, before mcat's global options line). */
function commanders(cmd: Command, width: number): string {
  const helper = cmd.createHelp();
  helper.prepareContext({ helpWidth: width });
  return Help.prototype.formatHelp.call(helper, cmd, helper);
}

function ours(cmd: Command, width: number): string {
  const helper = cmd.createHelp();
  helper.prepareContext({ helpWidth: width });
  return formatHelp(commandPage(cmd, helper), helper.helpWidth);
}

describe('the help layout', () => {
  it("lays out the program, every group and every command as commander's renderer does, at every width with room for a column of descriptions beside the terms", async () => {
    const program = await buildProgram();
    const all = everyCommand(program);
    expect(all.length).toBeGreaterThan(40);
    let compared = 0;
    for (const cmd of all) {
      for (const w of WIDTHS) {
        if (stacked(pageOf(cmd, w), w)) continue;
        // but a list with no space wider than the column, which mcat breaks after its commas or
        // bars (help-text.ts breakList) where commander runs it past the edge: read back whole
        const runOn = (t: string) => t.replace(/([,|])\n +(?=\S)/g, '$1');
        expect(runOn(ours(cmd, w)), `${cmd.name()} at ${w}`).toBe(runOn(commanders(cmd, w)));
        for (const line of ours(cmd, w).split('\n')) if (line.length > w && !line.startsWith('Usage: ')) expect(line.trim(), `${cmd.name()} at ${w}`).not.toMatch(/[,|]./);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(all.length * 4);
  });

  it('narrower than that (where commander leaves every description unwrapped, past the edge): each term on its line, its description under it, wrapped to the width, no word lost', async () => {
    const program = await buildProgram();
    let pages = 0;
    for (const cmd of everyCommand(program)) {
      for (let w = 20; w <= 80; w += 3) {
        const page = pageOf(cmd, w);
        if (!stacked(page, w)) continue;
        pages++;
        const text = ours(cmd, w);
        const lines = text.split('\n');
        const where = `${cmd.name()} at ${w}`;
        const terms = new Set([...page.arguments, ...page.options, ...page.commands].map((i) => `  ${i.term}`));
        for (const line of lines) {
          // the usage line and a term are never broken (as in commander's help)
          if (line.startsWith('Usage: ') || terms.has(line)) continue;
          // only a word longer than the line (a path, a list of choices) may pass the edge
          if (line.length > w) expect(line.trim(), `${where}: ${line}`).not.toMatch(/\s/);
        }
        for (const item of [...page.arguments, ...page.options, ...page.commands]) {
          const at = lines.indexOf(`  ${item.term}`);
          expect(at, `${where}: ${item.term}`).toBeGreaterThan(-1);
          if (!item.description) continue;
          const under: string[] = [];
          for (let i = at + 1; i < lines.length && lines[i].startsWith('      '); i++) under.push(lines[i].trim());
          // (a list broken after its commas or bars comes back whole: compared without the spaces)
          expect(under.join('').replace(/\s+/g, ''), `${where}: ${item.term}`).toBe(item.description.replace(/\s+/g, ''));
        }
      }
    }
    expect(pages).toBeGreaterThan(100);
  });

  it('lays out what mcat does not use as commander does too: escape sequences, preformatted text, a bare command', () => {
    const c = new Command('x')
      .description('\x1b[1mbold\x1b[0m words that go on and on until the line has to wrap somewhere near the edge of it')
      .argument('<a>', 'an \x1b[31margument\x1b[39m')
      .option('-f, --flag', 'preformatted:\n  indented line one\n  indented line two')
      .option('--\x1b[1mstyled\x1b[0m', 'a term with an escape')
      .option('--long-option-name <value>', 'a description long enough to be wrapped over several lines of the column beside the term');
    c.command('sub').description('');
    for (const w of WIDTHS) {
      const helper = c.createHelp();
      helper.prepareContext({ helpWidth: w });
      if (stacked(commandPage(c, helper), w)) continue;
      const stock = Help.prototype.formatHelp.call(helper, c, helper).replace(/\x1b\[\d*(;\d*)*m/g, '');
      expect(ours(c, w), `at ${w}`).toBe(stock);
    }
    expect(ours(new Command('bare').helpOption(false), 80)).toBe(commanders(new Command('bare').helpOption(false), 80));
  });
});

describe('the top-level help from the definitions', () => {
  it("is commander's page of the whole program, and of the program `mcat --help` builds, at every width", async () => {
    const whole = await buildProgram();
    const shallow = await buildProgram(['--help']);
    for (const w of WIDTHS) {
      if (stacked(topHelpPage(), w)) {
        // narrower than a column of descriptions: the same page as `mcat --help` builds it, stacked
        expect(formatHelp(topHelpPage(), w), `at ${w}`).toBe(ours(whole, w));
        continue;
      }
      expect(formatHelp(topHelpPage(), w), `at ${w}`).toBe(commanders(whole, w));
      expect(formatHelp(topHelpPage(), w), `at ${w}`).toBe(commanders(shallow, w));
    }
  });

  it("describes an option as commander does: its choices, and a default where commander shows one", () => {
    const defs: OptionDef[] = [
      { flags: '--size <n>', description: 'a size', default: '10' },
      { flags: '--mode [m]', description: 'a mode', default: 'fast', choices: ['fast', 'slow'] },
      { flags: '--fields <list...>', description: 'fields', default: ['a', 'b'] },
      { flags: '-x, --extra', description: 'a flag', default: false },
      { flags: '--flag', description: 'a flag with a default that is no boolean', default: 'yes' },
      { flags: '--no-thing', description: 'negated', default: false },
      { flags: '--how <way>', description: '', choices: ['a', 'b'] },
      { flags: '--plain', description: 'nothing to add' },
    ];
    const helper = new Help();
    for (const d of defs) expect(optionDescription(d), d.flags).toBe(helper.optionDescription(makeOption(d)));
  });

  /** A stream that keeps what is written, a terminal of `columns` or not. */
  class Sink extends Writable {
    text = '';
    constructor(
      readonly isTTY: boolean,
      readonly columns: number,
    ) {
      super();
    }
    override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
      this.text += chunk.toString('utf8');
      cb();
    }
  }
  function context(out: Sink, err: Sink): CliContext {
    return { io: { stdout: out, stderr: err, stdin: process.stdin }, env: {}, onInterrupt: () => () => {}, exitNow: () => {} };
  }

  it('prints for each line it takes what commander prints for it, fitted to stdout or stderr as commander fits it', async () => {
    const lines = [[], ['--help'], ['-h'], ['help'], ['-q'], ['-o', 'json', '--help'], ['-o', '--help'], ['--json', '--help'], ['--no-color', '-h', '--verbose']];
    // every global option under each of its names, with a value where it takes one, before and after a help flag, and alone
    for (const o of GLOBAL_OPTIONS) {
      for (const name of optionNames(o.flags)) {
        const given = takesValue(o.flags) ? [name, o.choices?.[0] ?? 'x1'] : [name];
        lines.push([...given, '--help'], ['-h', ...given], given);
      }
    }
    for (const args of lines) {
      expect(topHelp(args), args.join(' ')).toBeDefined();
      // stdout and stderr: terminals of other widths, or not terminals at all
      for (const [o, e] of [
        [new Sink(true, 60), new Sink(true, 120)],
        [new Sink(false, 0), new Sink(true, 50)],
        [new Sink(true, 100), new Sink(false, 0)],
      ]) {
        const [o2, e2] = [new Sink(o.isTTY, o.columns), new Sink(e.isTTY, e.columns)];
        const code = await runCli(args, context(o, e));
        const code2 = await runTopHelp(args, context(o2, e2));
        const what = `${args.join(' ')} (stdout ${o.isTTY ? o.columns : 'no tty'}, stderr ${e.isTTY ? e.columns : 'no tty'})`;
        expect(code2, what).toBe(code);
        expect(o2.text, what).toBe(o.text);
        expect(e2.text, what).toBe(e.text);
        expect(o.text, what).toMatch(/^Usage: mcat \[options\] \[command\]\n/);
      }
    }
  });

  it('refuses a line that is not one of the top-level help', async () => {
    await expect(runTopHelp(['release', '--help'], context(new Sink(false, 0), new Sink(false, 0)))).rejects.toThrow(/top-level help only/);
  });
});

// The layout of every help page: commander's own (its Help.formatHelp: usage, description, then
// the arguments, options and commands, their terms padded to one column and their descriptions
// wrapped to the width), for a page given as plain terms and descriptions. Commander renders each
// group's and command's help through it (main.ts: configureHelp), and the launcher renders the
// top-level help through it from the registry's definitions without building a program
// (top-help.ts). test/unit/cli/help-format.test.ts holds both to commander's own renderer.
import type { Command, Help } from 'commander';
import { breakList, wrapWords } from './help-text';

/** One line of a list: `  term  description`. */
export interface HelpItem {
  term: string;
  description: string;
}

/** What a help page shows, before layout. */
export interface HelpPage {
  /** 'mcat release batch [options] [ids...]' */
  usage: string;
  description: string;
  arguments: readonly HelpItem[];
  options: readonly HelpItem[];
  commands: readonly HelpItem[];
}

/** Descriptions are not wrapped into a column narrower than this (commander's minWidthToWrap). */
const MIN_WIDTH_TO_WRAP = 40;
const ITEM_INDENT = '  ';
const SPACER = 2;
const SGR = /\x1b\[\d*(;\d*)*m/g;

/** A string wrapped at whitespace to `width`, its own line breaks kept (commander's boxWrap). */
function boxWrap(str: string, width: number): string {
  if (width < MIN_WIDTH_TO_WRAP) return str;
  const wrapped: string[] = [];
  for (const line of str.split(/\r\n|\n/)) {
    // a list wider than the column (`latency=200ms,error=0.1,…`) in pieces after its commas, which
    // run on with nothing between them
    const chunks = line.match(/[\s]*[^\s]+/g)?.flatMap((c) => {
      const lead = /^\s*/.exec(c)![0];
      const pieces = c.length - lead.length > width ? breakList(c.slice(lead.length), width) : [c.slice(lead.length)];
      return pieces.map((p, i) => (i === 0 ? lead + p : p));
    }) ?? null;
    if (chunks === null) {
      wrapped.push('');
      continue;
    }
    let sum = chunks[0];
    for (let i = 1; i < chunks.length; i++) {
      const chunk = chunks[i];
      if (sum.length + chunk.length <= width) {
        sum += chunk;
        continue;
      }
      wrapped.push(sum);
      sum = chunk.trimStart();
    }
    wrapped.push(sum);
  }
  return wrapped.join('\n');
}

/** `  term  description`, the term padded to `termWidth`, the description wrapped beside it. */
function formatItem(item: HelpItem, termWidth: number, helpWidth: number): string {
  const { term, description } = item;
  if (!description) return ITEM_INDENT + term;
  const remaining = helpWidth - termWidth - SPACER - ITEM_INDENT.length;
  // a description with a line break followed by indentation is laid out by its author
  const text =
    remaining < MIN_WIDTH_TO_WRAP || /\n[^\S\r\n]/.test(description)
      ? description
      : boxWrap(description, remaining).replace(/\n/g, '\n' + ' '.repeat(termWidth + SPACER));
  return ITEM_INDENT + term.padEnd(termWidth) + ' '.repeat(SPACER) + text.replace(/\n/g, `\n${ITEM_INDENT}`);
}

/** Where a narrow page puts a description: on the lines under its term, indented this much. */
const STACKED_INDENT = ITEM_INDENT.repeat(3);
/** The narrowest text column a narrow page wraps to (below it, words are left whole). */
const MIN_STACKED_TEXT = 12;

/**
 * `str` wrapped at whitespace to `width` whatever the width (boxWrap leaves a column under 40
 * unwrapped, as commander does): for narrow pages, where a word longer than the line stays whole.
 * An indented line is laid out by its author.
 */
function wrapAnyWidth(str: string, width: number): string[] {
  return str.split(/\r\n|\n/).flatMap((line) => (/^[^\S\r\n]/.test(line) ? [line] : line.trim() === '' ? [''] : wrapWords(line.split(/\s+/), width)));
}

/**
 * A page too narrow for a column of descriptions beside the terms (commander would leave each
 * description unwrapped, every line running past the edge): each term on its own line, its
 * description on the lines under it, wrapped to the width (as gh and git lay out narrow help).
 */
function formatStacked(item: HelpItem, width: number): string {
  const lines = [ITEM_INDENT + item.term];
  if (item.description) {
    const textWidth = Math.max(MIN_STACKED_TEXT, width - STACKED_INDENT.length);
    const text = /\n[^\S\r\n]/.test(item.description) ? item.description.split(/\r\n|\n/) : wrapAnyWidth(item.description, textWidth);
    for (const l of text) lines.push(l === '' ? '' : STACKED_INDENT + l);
  }
  return lines.join('\n');
}

/** Whether a page of this term column is laid out stacked at `width` (no room for a column of text beside the terms). */
export function stackedAt(termWidth: number, width: number): boolean {
  return width - termWidth - SPACER - ITEM_INDENT.length < MIN_WIDTH_TO_WRAP;
}

/** A list of terms and descriptions laid out for `width` columns, as a page lays out each of its lists. */
export function formatList(items: readonly HelpItem[], width = 80): string[] {
  const termWidth = Math.max(0, ...items.map((i) => i.term.length));
  const stacked = stackedAt(termWidth, width) && items.some((i) => i.description);
  return items.map((i) => (stacked ? formatStacked(i, width) : formatItem(i, termWidth, width)));
}

/** The page laid out for a terminal `width` columns wide (commander's default: 80). */
export function formatHelp(page: HelpPage, width = 80): string {
  // no colour in help: escape sequences are taken out (commander measures text without them, then
  // takes them out of the whole page)
  const plain = (s: string) => s.replace(SGR, '');
  const lists = (
    [
      ['Arguments:', page.arguments],
      ['Options:', page.options],
      ['Commands:', page.commands],
    ] as const
  ).map(([heading, items]) => [heading, items.map((i) => ({ term: plain(i.term), description: plain(i.description) }))] as const);
  const termWidth = Math.max(0, ...lists.flatMap(([, items]) => items.map((i) => i.term.length)));
  const description = plain(page.description);
  const out = [`Usage: ${plain(page.usage)}`, ''];
  // too narrow for a column of descriptions beside the terms: each description under its term
  const stacked = stackedAt(termWidth, width) && lists.some(([, items]) => items.some((i) => i.description));
  if (description.length > 0) out.push(stacked && width < MIN_WIDTH_TO_WRAP ? wrapAnyWidth(description, Math.max(MIN_STACKED_TEXT, width)).join('\n') : boxWrap(description, width), '');
  for (const [heading, items] of lists) {
    if (items.length) out.push(heading, ...items.map((i) => (stacked ? formatStacked(i, width) : formatItem(i, termWidth, width))), '');
  }
  return out.join('\n');
}

/** The page of a commander command, each term and description as commander's helper makes it. */
export function commandPage(cmd: Command, helper: Help): HelpPage {
  return {
    usage: helper.commandUsage(cmd),
    description: helper.commandDescription(cmd),
    arguments: helper.visibleArguments(cmd).map((a) => ({ term: helper.argumentTerm(a), description: helper.argumentDescription(a) })),
    options: helper.visibleOptions(cmd).map((o) => ({ term: helper.optionTerm(o), description: helper.optionDescription(o) })),
    commands: helper.visibleCommands(cmd).map((c) => ({ term: helper.subcommandTerm(c), description: helper.subcommandDescription(c) })),
  };
}

// The free text under a command's help (what it does beyond its options, its exit codes) fitted
// to the help's width, as commander fits the option descriptions above it: on an 80-column
// terminal no line of help runs past the edge. A paragraph that already fits is left as written;
// one that does not is re-wrapped at spaces (a paragraph: prose lines up to one ending in '.',
// one ending in ':' before an indented line or a blank one, or a blank line). Indented lines (the examples, command lines to copy) are never touched:
// a command line broken in two would not run.


/** `w` in pieces of at most `max` characters, each ending after a ',' or '|' (a piece with none stays whole). */
export function breakList(w: string, max: number): string[] {
  const parts = w.split(/(?<=[,|])/);
  if (parts.length < 2) return [w];
  const out: string[] = [];
  let cur = '';
  for (const p of parts) {
    if (cur && cur.length + p.length > max) {
      out.push(cur);
      cur = p;
    } else cur += p;
  }
  if (cur) out.push(cur);
  return out;
}

function isProse(line: string): boolean {
  return line.length > 0 && !/^\s/.test(line);
}

/**
 * Words wrapped greedily to `width`, lines after the first starting with `indent` (a word longer
 * than the width stands alone on its line; a "word" may hold spaces: it is never broken). A list
 * with no space wider than a line (`latency=200ms,error=0.1,…`, `"a"|"b"|…`) is broken after its
 * commas or bars, each piece as wide as a line holds: nothing is added to it, and it runs on.
 */
export function wrapWords(words: readonly string[], width: number, indent = ''): string[] {
  const lines: string[] = [];
  let line = '';
  const room = Math.max(1, width - indent.length);
  for (const word of words.flatMap((w) => (w.length > room && !/\s/.test(w) ? breakList(w, room) : [w]))) {
    if (!word) continue;
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent + word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** `text` with each prose paragraph that has a line wider than `width` re-wrapped to it. */
export function fitProse(text: string, width: number): string {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    if (!isProse(lines[i])) {
      out.push(lines[i++]);
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && isProse(lines[i])) {
      const line = lines[i++];
      para.push(line);
      if (/\.\s*$/.test(line) || (/:\s*$/.test(line) && !isProse(lines[i] ?? ''))) break;
    }
    if (para.every((l) => l.length <= width)) out.push(...para);
    else out.push(...wrapWords(para.join(' ').split(/ +/), width));
  }
  return out.join('\n');
}

// The free text under a command's help (what it does beyond its options, its exit codes) fitted
// to the help's width, as commander fits the option descriptions above it: on an 80-column
// terminal no line of help runs past the edge. A paragraph that already fits is left as written;
// one that does not is re-wrapped at spaces (a paragraph: prose lines up to one ending in '.',
// one ending in ':' before an indented line or a blank one, or a blank line). Indented lines (the examples, command lines to copy) are never touched:
// a command line broken in two would not run.


function isProse(line: string): boolean {
  return line.length > 0 && !/^\s/.test(line);
}

/**
 * Words wrapped greedily to `width`, lines after the first starting with `indent` (a word longer
 * than the width stands alone on its line; a "word" may hold spaces: it is never broken).
 */
export function wrapWords(words: readonly string[], width: number, indent = ''): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
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

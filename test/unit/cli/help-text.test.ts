import { describe, expect, it } from 'vitest';
import { fitProse } from '../../../src/cli/help-text';

describe('fitProse: the free text of a help fitted to its width', () => {
  const text = [
    '',
    "Whose: the profile's user, or --user ID with that user's token (a profile per customer, MCAT_TOKEN and",
    'MCAT_TOKEN_SECRET, or two lines on standard input with --user-token-from-stdin).',
    'Exit: 0 when done.',
    '',
    'Examples:',
    "  printf '%s\\n' \"$USER_TOKEN\" \"$USER_TOKEN_SECRET\" | mcat playlist list --user 10002 --user-token-from-stdin",
  ].join('\n');

  it('re-wraps a paragraph with a line past the width; the examples and short paragraphs stay as written', () => {
    expect(fitProse(text, 80).split('\n')).toEqual([
      '',
      "Whose: the profile's user, or --user ID with that user's token (a profile per",
      'customer, MCAT_TOKEN and MCAT_TOKEN_SECRET, or two lines on standard input with',
      '--user-token-from-stdin).',
      'Exit: 0 when done.',
      '',
      'Examples:',
      "  printf '%s\\n' \"$USER_TOKEN\" \"$USER_TOKEN_SECRET\" | mcat playlist list --user 10002 --user-token-from-stdin",
    ]);
  });

  it('changes nothing when every line fits', () => {
    expect(fitProse(text, 120)).toBe(text);
  });

  it("a line ending in ':' runs on into prose, and ends a heading before indented lines", () => {
    expect(fitProse('Secrets are never taken as flags:\non a terminal they are prompted for.', 20)).toBe('Secrets are never\ntaken as flags: on a\nterminal they are\nprompted for.');
    expect(fitProse('Examples (these are yours, and long):\n  mcat x', 20)).toBe('Examples (these are\nyours, and long):\n  mcat x');
  });

  it('a word longer than the width stands alone, never cut', () => {
    expect(fitProse('see --with-secrets-from-stdin now', 10)).toBe('see\n--with-secrets-from-stdin\nnow');
  });
});

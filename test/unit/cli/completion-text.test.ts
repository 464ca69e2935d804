import { describe, expect, it } from 'vitest';
import { completionText } from '../../../src/cli/commands/completion/ids';

describe('completionText: a playlist name as a completion description', () => {
  it('is one line without a tab (the separator) or a raw control character (a name comes from the network), cut at 60 characters', () => {
    expect(completionText('Road\ttrip\nmix\u001b[31m\u009b')).toBe('Road trip mix\\u001b[31m\\u009b');
    expect(completionText('x'.repeat(80))).toBe('x'.repeat(59) + '…');
    expect(completionText('東京 🎵')).toBe('東京 🎵');
    expect(completionText(undefined)).toBe('');
  });
});

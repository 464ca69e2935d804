// The track metadata sheet's "strongest tag strengths": the 0-1 scores of the tag families, not the
// plain scalars the spec also lists inside tagstrengths (bpm 178 or loudness -15 would always "win").
import { describe, expect, it } from 'vitest';
import { metadataSheet } from '../../../src/cli/commands/track/metadata';

const tagstrengths = {
  bpm: 177.8,
  loudness: -15.233,
  arousal: -0.975,
  timbre: -0.962,
  valence: 0.4,
  Space: 0.99, // a scalar whatever the case of its name
  moodclusterHappy: 0.61,
  vocalsMale: 0.93,
  level2genreTrap: 0.965,
  origindecade1980s: 0.2,
};

const strengths = (top: number) => {
  const rows = metadataSheet({ id: 1, title: 't', tagstrengths } as never, { top, embeddings: false });
  const at = rows.findIndex(([label]) => label.startsWith('# Strongest tag strengths'));
  return { heading: rows[at]?.[0], rows: rows.slice(at + 1).filter(([label]) => !label.startsWith('#') && label !== 'Tags updated') };
};

describe('track metadata: the strongest tag strengths', () => {
  it('ranks the tag families\' scores, strongest first, leaving out bpm, loudness and the other scalars', () => {
    const s = strengths(3);
    expect(s.heading).toBe('# Strongest tag strengths (top 3)');
    expect(s.rows).toEqual([
      ['level2genreTrap', '0.965'],
      ['vocalsMale', '0.930'],
      ['moodclusterHappy', '0.610'],
    ]);
  });
  it('a top larger than the families shows every family score and no scalar', () => {
    expect(strengths(50).rows.map(([k]) => k)).toEqual(['level2genreTrap', 'vocalsMale', 'moodclusterHappy', 'origindecade1980s']);
  });
});

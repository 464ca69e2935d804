// `mcat track metadata ID`: a readable sheet of the enhanced metadata; json/xml give everything.
import type { View } from '../../../output/types';
import { defineCommand, type CommandContext } from '../../command';
import { about, intOption, output, outputFormat, session, sheetTo } from '../../context';
import { INT32_MAX, oneId } from '../../ids';
import { duration, when } from '../../views/format';
import type { EnhancedTrack, TrackMetadataBody } from '../../../client/schemas/track';

/** The view's one cast: a body handed to it is the metadata call's answer, as the client read it. */
const metadataBodyOf = (body: unknown) => body as TrackMetadataBody | null | undefined;

const join = (...v: unknown[]) => v.filter((x) => x !== null && x !== undefined && x !== '').join(', ');

export const metadataView: View = {
  columns: [
    { key: 'id', header: 'ID', align: 'right', shrink: false },
    { key: 'title', header: 'Title' },
    { key: 'release.artist.name', header: 'Artist' },
    { key: 'bpm', header: 'BPM', align: 'right' },
    { key: 'key', header: 'Key' },
    { key: 'scale', header: 'Scale' },
    { key: 'primaryMoodCluster', header: 'Mood' },
    { key: 'level1Genre', header: 'Genre' },
    { key: 'isrc', header: 'ISRC', shrink: false },
  ],
  fields: ['id', 'title', 'trackNumber', 'duration', 'isrc', 'discNumber', 'release.id', 'release.title', 'release.artist.name', 'explicit', 'bpm', 'key', 'scale', 'tempo', 'loudness', 'primaryMoodCluster', 'level1Genre', 'level2Genre', 'tagstrengths', 'embeddings', 'tagsUpdatedAt'],
  items: (body) => {
    const b = metadataBodyOf(body);
    return b?.track ? [b.track] : [];
  },
};

// The plain scalars the spec lists inside `tagstrengths` (bpm, loudness, ...): measures on their own
// scales (bpm 178, loudness -15), not the 0-1 scores of a tag family, so they are not ranked with them.
const SCALARS = new Set(['arousal', 'valence', 'pleasantness', 'engagement', 'timbre', 'roughness', 'texture', 'grooviness', 'space', 'loudness', 'bpm']);

/** The `top` strongest tag-family scores of a track's tagstrengths, strongest first. */
export function strongestTags(tagstrengths: unknown, top: number): [string, number][] {
  if (!tagstrengths || typeof tagstrengths !== 'object') return [];
  const scores: [string, number][] = [];
  for (const [k, v] of Object.entries(tagstrengths as Record<string, unknown>)) {
    if (typeof v === 'number' && Number.isFinite(v) && !SCALARS.has(k.toLowerCase())) scores.push([k, v]);
  }
  return scores.sort((a, b) => b[1] - a[1]).slice(0, top);
}

export function metadataSheet(t: Partial<EnhancedTrack>, opts: { top: number; embeddings: boolean }): [string, string][] {
  const rows: [string, string][] = [];
  const add = (label: string, value: unknown) => {
    if (value !== null && value !== undefined && value !== '') rows.push([label, String(value)]);
  };
  rows.push(['# Identity', '']);
  add('Track', `${t.title ?? ''} (id ${t.id})`);
  add('Artist', t.release?.artist?.appearsAs ?? t.release?.artist?.name);
  add('Release', t.release ? `${t.release.title ?? ''}${t.release.version ? ` (${t.release.version})` : ''} (id ${t.release.id})` : undefined);
  add('Label', t.release?.label?.name);
  add('Track no.', t.discNumber ? `${t.trackNumber} (disc ${t.discNumber})` : t.trackNumber);
  add('Duration', duration(t.duration));
  add('ISRC', t.isrc);
  add('Explicit', t.explicit === undefined ? undefined : t.explicit ? 'yes' : 'no');
  rows.push(['# Sound', '']);
  add('BPM', typeof t.bpm === 'number' ? Math.round(t.bpm * 10) / 10 : t.bpm);
  add('Key', join(t.key, t.scale));
  add('Tonality', t.tonality);
  add('Tempo', t.tempo);
  add('Loudness', t.loudness);
  add('Vocals', t.vocals);
  add('Rhythm', t.rhythm);
  rows.push(['# Mood', '']);
  add('Moods', join(t.primaryMoodCluster, t.secondaryMoodCluster, t.tertiaryMoodCluster));
  add('Valence', t.valence);
  add('Arousal', t.arousal);
  add('Engagement', t.engagement);
  rows.push(['# Genre and origin', '']);
  add('Genres', join(t.level1Genre, t.secondaryLevel1Genre, t.tertiaryLevel1Genre));
  add('Subgenres', join(t.level2Genre, t.secondaryLevel2Genre));
  add('Origin', join(t.originRegion, t.originDecade));
  rows.push(['# Audience and use', '']);
  add('Age', join(t.audienceAge, t.secondaryAudienceAge, t.tertiaryAudienceAge));
  add('Gender', t.audienceGender);
  add('Region', join(t.audienceRegion, t.secondaryAudienceRegion, t.tertiaryAudienceRegion));
  add('Use cases', join(t.useCase, t.secondaryUseCase));
  rows.push(['# Instruments', '']);
  add('Instruments', join(t.dominantInstrument, t.secondaryInstrument, t.tertiaryInstrument));
  add('Sound generation', t.soundGeneration);
  add('Recording', t.recordingEnvironment);
  const strengths = strongestTags(t.tagstrengths, opts.top);
  if (strengths.length) {
    rows.push([`# Strongest tag strengths (top ${strengths.length})`, '']);
    for (const [k, v] of strengths) rows.push([k, v.toFixed(3)]);
  }
  add('Tags updated', when(t.tagsUpdatedAt)); // a moment: the sheets' one short local form
  if (opts.embeddings && Array.isArray(t.embeddings)) {
    rows.push([`# Embeddings (${t.embeddings.length} values)`, '']);
    rows.push(['Vector', t.embeddings.map((x: number) => (typeof x === 'number' ? x.toFixed(4) : String(x))).join(' ')]);
  } else if (Array.isArray(t.embeddings)) {
    add('Embeddings', `${t.embeddings.length} values (show with --embeddings)`);
  }
  return rows;
}

type MetadataFlags = { trackId: string; embeddings?: boolean; top: string };

export default defineCommand<MetadataFlags>({
  name: 'metadata',
  description: 'enhanced metadata of a track: identity, bpm, key, moods, genres, audience, instruments, tag strengths',
  arguments: [{ name: '<trackId>', description: "track id ('-' reads it from standard input)" }],
  options: [
    { flags: '--embeddings', description: 'include the embedding vector in the table view' },
    { flags: '--top <n>', description: 'how many of the strongest tag strengths to show', default: '12' },
  ],
  examples: ['mcat track metadata 10000101', 'mcat track metadata 10000101 -o json | jq .track.bpm'],
  json: async () => metadataView,
  run: runTrackMetadata,
});

async function runTrackMetadata(flags: MetadataFlags, ctx: CommandContext): Promise<void> {
  const trackId = await oneId(flags.trackId, 'track', INT32_MAX);
  const top = intOption(flags.top, '--top', { min: 0, max: 500 }) ?? 12;
  const format = outputFormat(ctx);
  const out = await output(ctx);
  const s = await session(ctx);
  (await import('../../errors')).noteUserScope({ catalogue: true });
  const { trackMetadata, trackMetadataCall } = await import('../../../client/catalogue');
  if (format === 'xml') {
    const { printXml, xmlOfCall } = await import('../../xml-output');
    return printXml(await xmlOfCall(s.client, trackMetadataCall({ trackId, country: s.country })));
  }
  const body = await trackMetadata(s.client, { trackId, country: s.country });
  out.heading(about(s, `Metadata of track ${trackId}`, { catalogue: true }));
  if (format === 'table' && ctx.globals.fields === undefined) {
    await sheetTo(ctx, out, metadataSheet(body.track ?? {}, { top, embeddings: Boolean(flags.embeddings) }));
    return;
  }
  await out.document(body, metadataView);
}

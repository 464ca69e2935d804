import type { Command } from 'commander';

export function registerTrack(program: Command): void {
  const track = program.command('track').description('catalogue tracks');
  track
    .command('metadata')
    .description('enhanced metadata of a track: identity, bpm, key, moods, genres, audience, instruments, tag strengths')
    .argument('<trackId>', 'track id')
    .option('--embeddings', 'include the embedding vector in the table view')
    .option('--top <n>', 'how many of the strongest tag strengths to show', '12')
    .addHelpText('after', '\nExamples:\n  mcat track metadata 10000101\n  mcat track metadata 10000101 -o json | jq .track.bpm')
    .action(async (trackId: string, flags: { embeddings?: boolean; top: string }, cmd: Command) => {
      const { runTrackMetadata } = await import('./track-run');
      await runTrackMetadata(cmd, trackId, flags);
    });
}

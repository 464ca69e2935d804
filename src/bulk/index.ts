// The bulk engine's surface for src/cli/commands (playlist apply / export): what they reach as
// `bulk.<name>` after one lazy import. Other layers import the bulk modules themselves.
export { parseEdits, canonicalEdit } from './edits';
export { applyEdits, carriedForDryRun, mostInFlight } from './apply';
export { runReport, checkReportPath, checkReportClash, summaryLines, applyExitCode, progressRenderer } from './report';
export { applyTarget, defaultJournalPath, inputSource, journalDir } from './files';
export { pruneJournals } from './prune';
export { ADAPTIVE_MAX } from './adaptive';
export { dryRunEdits, formatDryRun } from './dryrun';
export { exportPlaylists, exportLine } from './export';
export { parseShard, selectShard, shardLabel, shardSummary, checkOtherSplits, checkChangedInput } from './shard';
export { verifyEdits } from './verify';

// The bulk engine's public surface, for src/cli/commands (playlist apply / export / replace --dry-run).
export { parseEdits, validateEdit, canonicalJson, canonicalEdit, hashEdits, formatFromFileName, OPS, EDIT_KEY_ORDER } from './edits';
export type { Edit, ParsedEdit, ParseResult, InputProblem, InputFormat, ReplaceEdit, DetailsEdit, CreateEdit, GroupAddEdit, GroupReplaceEdit, Op } from './edits';
export { applyEdits, MARKER_KEY, replaceBodyOf, createBodyOf, describeError, isMissingPlaylist } from './apply';
export type { ApplyOptions, ApplyResult, ApplyProgress, FailedEdit, CreatedPlaylist } from './apply';
export { runReport, reportLines, summaryLines, applyExitCode, formatProgress, progressRenderer } from './report';
export type { ReportLine } from './report';
export { Journal, readJournal, defaultJournalPath } from './journal';
export type { JournalRecord, JournalHeader } from './journal';
export { AimdScheduler, classifyError } from './scheduler';
export type { SchedulerOptions } from './scheduler';
export { diffPlaylist, formatDiff, cutDescription } from './diff';
export type { PlaylistDiff, DesiredPlaylist, FieldChange, TrackAt, TrackMove } from './diff';
export { dryRunEdits, formatDryRun } from './dryrun';
export type { DryRunPlan, DryRunOptions, PlanAction } from './dryrun';
export { exportPlaylists, playlistToEdit, exportLine } from './export';
export type { ExportOptions } from './export';
export { loadOps } from './ops';
export type { BulkOps } from './ops';

// --jq: a jq program run on the command's JSON document by jq itself (jq 1.8 compiled to
// WebAssembly, the jq-wasm package: its own bundle, loaded only when --jq is given). Printed as
// `gh --jq` prints: a string as raw text, any other value as compact JSON, one a line. The text
// reaches stdout through streams.ts like every output, so clean() shows the control characters of
// a raw string as visible escapes (tab and newline kept) and escapes C1 inside the JSON lines.
//
// The program is compiled before any request is sent (a syntax error is a usage error, exit 2);
// an error while it runs on the answer is exit 1, and then nothing is printed. jq runs inside
// WebAssembly with a virtual file system and environment: it sees the document and nothing else
// of the machine (no files, and `$ENV` is not the shell's environment).
import { McatError, InputError } from '../client/errors';
import { clean } from './clean';
import { withConsoleHeld } from './streams';

interface JqResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}
interface Jq {
  raw(input: string, query: string, flags?: string[]): JqResult;
}

/**
 * How the run lets signals end the process while jq holds the thread (CliContext.blocking): a
 * program that never ends is still stopped by Ctrl-C.
 */
type Blocking = <T>(fn: () => T) => T;

/** warn: where the program's debug and stderr lines go; blocking: see Blocking */
export interface JqOptions {
  warn?: (line: string) => void;
  blocking?: Blocking;
}

let engine: Promise<Jq> | undefined;

function jq(): Promise<Jq> {
  engine ??= import('jq-wasm').then((m) => m.loadJq() as Promise<Jq>);
  return engine;
}

/**
 * One run of the engine. Its WebAssembly has 256 MiB: a program or a document past that aborts
 * the engine (a RuntimeError, after the runtime printed 'Aborted()' itself: held here), which is
 * then dead; the next run loads a new one.
 */
async function runEngine(input: string, program: string, blocking?: Blocking): Promise<JqResult> {
  const e = await jq();
  const run = () => e.raw(input, program, ['-c']);
  const r = withConsoleHeld(() => (blocking ? blocking(run) : run()));
  if (r.error === undefined) return r.value!;
  engine = undefined;
  if ((r.error as Error | undefined)?.name === 'RuntimeError' || /^Aborted\(/.test(String((r.error as Error | undefined)?.message))) {
    const err = new McatError('--jq: jq ran out of memory (256 MiB) running the program on this document');
    err.hint = 'the request succeeded; for a document this large pipe -o json (or -o ndjson) into jq itself, or narrow the list';
    throw err;
  }
  throw r.error;
}

/** jq's message without its "jq: error ...:" lead, on one line (it may quote the data: cleaned). */
function message(stderr: string): string {
  const first = stderr.split('\n').find((l) => l.trim() !== '' && !/^jq: \d+ compile errors?$/.test(l)) ?? stderr;
  const text = first
    .replace(/^jq: error(?: \(at [^)]*\))?(?: \(not a string\))?: /, '')
    .replace(/:\s*$/, '')
    .trim();
  return clean(text, 'line');
}

const MANUAL = "jq's manual: https://jqlang.org/manual/";

/** Compiles the program with no input: a syntax error (or an unknown function) is a usage error. */
export async function checkJq(program: string, opts: JqOptions = {}): Promise<void> {
  if (program.trim() === '') throw new InputError('--jq needs a jq program', "e.g. --jq '.playlists.playlist[].id'");
  const r = await runEngine('', program, opts.blocking);
  if (r.exitCode !== 0) throw new InputError(`--jq: ${message(r.stderr)}`, MANUAL);
}

/**
 * The program's outputs for one document: strings raw, other values as compact JSON, one a line
 * (for stdout's writer, which cleans them).
 */
export async function runJq(program: string, document: unknown, opts: JqOptions = {}): Promise<string> {
  const r = await runEngine(JSON.stringify(document ?? null), program, opts.blocking);
  if (r.exitCode !== 0) {
    const e = new McatError(`--jq: ${message(r.stderr) || `jq stopped with status ${r.exitCode}`}`);
    e.hint = 'the request succeeded; the jq program failed on its answer, so nothing was printed';
    throw e;
  }
  // debug and stderr messages of the program are for the person running it (say() cleans them)
  if (r.stderr && opts.warn) for (const l of r.stderr.split('\n')) if (l) opts.warn(l);
  let out = '';
  for (const line of r.stdout.split('\n')) {
    if (line === '') continue;
    out += (line.startsWith('"') ? (JSON.parse(line) as string) : line) + '\n';
  }
  return out;
}
